import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { PUBLIC_PAGE_TABLES, writesPublicTable } from "~/db/client.server";

describe("which statements drop the page and site caches (issue 19, decision 191)", () => {
  it.each([
    ['select "id", "name" from "units" where "units"."id" = $1', false],
    ['select * from "units" where "id" = $1 for update', false],
    ['select * from "reservations" for no key update skip locked', false],
    ["begin", false],
    ["commit", false],
    ['insert into "units" ("id") values ($1)', true],
    ['update "reservations" set "status" = $1 where "id" = $2', true],
    ['delete from "unit_types" where "id" = $1', true],
    ['with "x" as (select 1) update "units" set "status" = $1', true],
    ['insert into "portal_sign_in_attempts" ("email") values ($1)', false],
    ['insert into "checkouts" ("id") values ($1) on conflict ("id") do update set "step" = $2', false],
    ['delete from "tenant_sessions" where "id" = $1', false],
    ['update "email_outbox" set "sent_at" = now()', false],
    // A statement we cannot read counts as a write.
    ["select gatehouse_do_something()", false],
    ["call refresh_everything()", true],
    ["truncate table websites", true],
  ])("%s → %s", (statement, expected) => {
    expect(writesPublicTable(statement)).toBe(expected);
  });

  it("PUBLIC_PAGE_TABLES is the list of tables with the gatehouse_changed trigger", () => {
    const sql = fs
      .readdirSync("drizzle")
      .filter((f) => f.endsWith(".sql"))
      .map((f) => fs.readFileSync(`drizzle/${f}`, "utf8"))
      .join("\n");
    const triggered = new Set([...sql.matchAll(/CREATE TRIGGER gatehouse_changed [^;]*? ON "([a-z_]+)"/g)].map((m) => m[1]));
    const dropped = [...sql.matchAll(/DROP TRIGGER (?:IF EXISTS )?gatehouse_changed ON "([a-z_]+)"/g)].map((m) => m[1]);
    for (const t of dropped) triggered.delete(t);
    expect([...PUBLIC_PAGE_TABLES].sort()).toEqual([...triggered].sort());
  });
});
