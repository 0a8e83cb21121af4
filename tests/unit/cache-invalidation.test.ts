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

  it("PUBLIC_PAGE_TABLES is the list of tables with the gatehouse_changed triggers (row level: real changes only)", () => {
    const sql = fs
      .readdirSync("drizzle")
      .filter((f) => f.endsWith(".sql"))
      .sort()
      .map((f) => fs.readFileSync(`drizzle/${f}`, "utf8"))
      .join("\n");
    const live = new Map<string, Set<string>>();
    for (const m of sql.matchAll(/(CREATE|DROP) TRIGGER (?:IF EXISTS )?(gatehouse_changed\w*)[^;]*? ON "([a-z_]+)"/g)) {
      const [, verb, name, table] = m;
      const tables = live.get(name!) ?? new Set<string>();
      if (verb === "CREATE") tables.add(table!);
      else tables.delete(table!);
      live.set(name!, tables);
    }
    // The statement-level trigger of 0003 fired for statements that changed nothing (0006 dropped it).
    expect([...(live.get("gatehouse_changed") ?? [])]).toEqual([]);
    for (const name of ["gatehouse_changed_rows", "gatehouse_changed_update", "gatehouse_changed_truncate"]) {
      expect([...(live.get(name) ?? [])].sort(), name).toEqual([...PUBLIC_PAGE_TABLES].sort());
    }
  });
});
