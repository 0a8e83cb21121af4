/**
 * The abandoned-rental reminder's one-click unsubscribe (issue 40, decision 612), over HTTP and SMTP:
 * the reminder read off the SMTP wire carries `List-Unsubscribe: <…/rent/unsubscribe/TOKEN>` and
 * `List-Unsubscribe-Post: List-Unsubscribe=One-Click`; the mail client's POST of
 * `List-Unsubscribe=One-Click` to that link (no cookie, no CSRF token) records the address; any other
 * POST there is refused, and a token not ours is a 404.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { emailOutbox, rentalRecoveryOptOuts } from "~/db/schema";
import { pinClockForTests } from "~/platform/clock.server";
import { sendRentalRecoveryReminders } from "~/services/rental/recovery.server";
import { startAppServer, type AppServer } from "../support/app-server";
import { createTestDatabase } from "../support/db";
import { detailsFormFields, lumbertonUnitType, NOW } from "../support/rental-fixtures";
import { startSmtpServer, type TestSmtpServer } from "../support/smtp-server";
import { visitor } from "../support/visitor";

let handle: DatabaseHandle;
let server: AppServer;
let smtp: TestSmtpServer;
let rentPath: string;

beforeAll(async () => {
  smtp = await startSmtpServer();
  process.env.SMTP_URL = `smtp://127.0.0.1:${smtp.port}`;
  handle = await createTestDatabase();
  rentPath = `/rent/${(await lumbertonUnitType(handle.db)).unitTypeId}`;
  server = await startAppServer(handle.db);
});

afterAll(async () => {
  pinClockForTests(null);
  delete process.env.SMTP_URL;
  await server?.close();
  await handle?.close();
  await smtp?.close();
});

const oneClick = (path: string, body = "List-Unsubscribe=One-Click") =>
  fetch(server.origin + path, { method: "POST", redirect: "manual", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body });

describe("the recovery reminder's List-Unsubscribe header", () => {
  it("is on the mail as sent, and its link takes RFC 8058's one-click POST without a CSRF token", async () => {
    const email = `one.click.${process.pid}@example.com`;
    pinClockForTests(NOW);
    const b = visitor(() => server.origin);
    const details = await b.post(`${rentPath}?step=details`, { ...detailsFormFields(email), website_url: "" });
    expect(details.status, details.body.slice(0, 300)).toBe(303);
    const later = new Date(NOW.getTime() + 61 * 60_000);
    pinClockForTests(later);
    expect((await sendRentalRecoveryReminders(handle.db, later)).emails).toBe(1);
    const sent = smtp.received.filter((m) => m.to.some((t) => t.includes(email)));
    expect(sent).toHaveLength(1);
    const head = sent[0]!.data.slice(0, sent[0]!.data.indexOf("\r\n\r\n")).replace(/\r\n[ \t]+/g, " ");
    expect(head).toContain("List-Unsubscribe-Post: List-Unsubscribe=One-Click");
    const link = /List-Unsubscribe: <([^>]+)>/.exec(head)?.[1];
    expect(link).toMatch(/^https?:\/\/[^/]+\/rent\/unsubscribe\/[A-Za-z0-9_-]{43}$/);
    const path = new URL(link!).pathname;
    // Once sent, the stored copy keeps no link, in the body or the header (decision 198).
    const [stored] = await handle.db.select().from(emailOutbox).where(eq(emailOutbox.to, email));
    expect(stored!.headers!["List-Unsubscribe"]).toBe("<[redacted]>");
    expect(stored!.text).not.toContain(path);

    // Not the one-click body: refused, nothing recorded. Another token: 404.
    expect((await oneClick(path, "unsubscribe=yes")).status).toBe(400);
    expect(await handle.db.select().from(rentalRecoveryOptOuts).where(eq(rentalRecoveryOptOuts.email, email))).toHaveLength(0);
    expect((await oneClick(`/rent/unsubscribe/${"A".repeat(43)}`)).status).toBe(404);
    // The one-click POST, as a mail provider sends it: no cookie, no form token.
    const res = await oneClick(path);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("You are unsubscribed");
    expect(await handle.db.select().from(rentalRecoveryOptOuts).where(eq(rentalRecoveryOptOuts.email, email))).toHaveLength(1);
    // Again: still one row.
    expect((await oneClick(path)).status).toBe(200);
    expect(await handle.db.select().from(rentalRecoveryOptOuts).where(eq(rentalRecoveryOptOuts.email, email))).toHaveLength(1);
  });
});
