import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { eq } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { emailOutbox } from "~/db/schema";
import { sendEmail } from "~/services/mail/outbox.server";
import { createTestDatabase } from "../support/db";
import { startSmtpServer, type TestSmtpServer } from "../support/smtp-server";

let handle: DatabaseHandle;
let smtp: TestSmtpServer;
beforeAll(async () => {
  smtp = await startSmtpServer();
  // Read once by env() on first use in this test file (each file has its own module registry).
  process.env.SMTP_URL = `smtp://127.0.0.1:${smtp.port}`;
  handle = await createTestDatabase();
});
afterAll(async () => {
  delete process.env.SMTP_URL;
  await handle?.close();
  await smtp?.close();
});

describe("sendEmail with SMTP configured", () => {
  it("keeps the email in the outbox, sends it through SMTP and stamps sent_at", async () => {
    const result = await sendEmail(handle.db, {
      to: "office@example.com",
      subject: "Website message from Ann",
      text: "Hello from the contact form",
    });
    expect(result.sent).toBe(true);
    const [row] = await handle.db.select().from(emailOutbox).where(eq(emailOutbox.id, result.id));
    expect(row!.sentAt).toBeInstanceOf(Date);
    expect(row!.error).toBeNull();
    expect(smtp.received).toHaveLength(1);
    expect(smtp.received[0]!.to).toEqual(["RCPT TO:<office@example.com>"]);
    expect(smtp.received[0]!.data).toContain("Subject: Website message from Ann");
    expect(smtp.received[0]!.data).toContain("Hello from the contact form");
  });

  it("records a refused email on its outbox row instead of failing, logged as a warning without the address", async () => {
    const logged = vi.spyOn(console, "warn").mockImplementation(() => {});
    const result = await sendEmail(handle.db, { to: "reject@example.com", subject: "S", text: "T" });
    expect(result.sent).toBe(false);
    const [row] = await handle.db.select().from(emailOutbox).where(eq(emailOutbox.id, result.id));
    expect(row!.sentAt).toBeNull();
    expect(row!.error).toMatch(/550|recipients/i);
    expect(row!.claimedUntil).toBeNull();
    expect(row!.nextAttemptAt.getTime()).toBeGreaterThan(Date.now());
    expect(logged).toHaveBeenCalledWith(expect.stringContaining("could not be sent"));
    expect(logged.mock.calls.flat().join(" ")).not.toContain("reject@example.com");
    logged.mockRestore();
  });
});
