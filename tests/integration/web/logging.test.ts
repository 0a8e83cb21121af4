import { describe, expect, it, vi } from "vitest";
import bcrypt from "bcryptjs";
import { accounts, tenants } from "~/db/schema";
import { logger, logRequestError, scrubText } from "~/platform/logger.server";
import { handleError } from "~/entry.server";
import { createTestDatabase } from "../support/db";

// Issue 8: a failed query must not put its SQL parameters (bcrypt hashes, personal data) in the logs,
// and URLs are logged without their query strings.
describe("logs", () => {
  it("a failed query with a password hash, a reset token, an e-mail and a card number in play logs none of them", async () => {
    const handle = await createTestDatabase();
    try {
      const hash = await bcrypt.hash("hunter22", 4);
      const token = "Zq3vN8xK2mP5rT7wY1bC4dF6gH9jL0aS_e-Ru";
      const email = "ada.lovelace@example.com";
      const cardNumber = "4242424242424242";
      const [account] = await handle.db.select({ id: accounts.id }).from(accounts);
      const tenant = {
        accountId: account!.id,
        firstName: "Ada",
        lastName: "Lovelace",
        email,
        cellPhone: "9105550134",
        webPwHash: hash,
        addr1: "1 Main St",
        addr2: cardNumber,
        city: "Lumberton",
        region: "NC",
        postalCode: "28358",
        externalId: token,
      };
      await handle.db.insert(tenants).values(tenant);
      // The same e-mail again: a unique violation (23505), whose Drizzle error carries every parameter.
      const error = await handle.db
        .insert(tenants)
        .values(tenant)
        .then(() => null, (e: unknown) => e as Error);
      expect(error).toBeInstanceOf(Error);
      // What console.error(error) printed before: the parameters are in the message.
      expect(error!.message).toContain(hash);

      const lines: string[] = [];
      const capture = (...args: unknown[]) => void lines.push(args.map(String).join(" "));
      const spies = [
        vi.spyOn(console, "error").mockImplementation(capture),
        vi.spyOn(console, "warn").mockImplementation(capture),
        vi.spyOn(console, "log").mockImplementation(capture),
      ];
      const url = `http://localhost/customer-portal/reset-password?token=${token}&email=${encodeURIComponent(email)}&card=${cardNumber}`;
      // The server's last-resort handler (server/app.ts) and React Router's handleError (entry.server.tsx).
      logRequestError(error, { method: "POST", url: `/customer-portal/reset-password?token=${token}&card=${cardNumber}` });
      handleError(error, { request: new Request(url, { method: "POST" }) });
      // Careless calls: secrets in the message and in named fields.
      logger.error({ err: error, password: "hunter22", token, card: cardNumber, user: { email, webPwHash: hash } }, `reset for ${email} with ${token} card ${cardNumber} hash ${hash} at ${url}`);
      logger.warn(`visit ${url}`);
      // console.error stays mocked for tests/setup/fail-on-console-error.ts, which restores it.
      for (const spy of spies.slice(1)) spy.mockRestore();

      expect(lines.length).toBe(4);
      const all = lines.join("\n");
      for (const secret of [hash, hash.slice(7), token, email, encodeURIComponent(email), cardNumber, "hunter22", "?token="]) {
        expect(all).not.toContain(secret);
      }
      // What is logged instead: the PostgreSQL error code and the path.
      const first = JSON.parse(lines[0]!) as { level: number; path: string; method: string; err: { code: string; message: string } };
      expect(first).toMatchObject({ level: 50, method: "POST", path: "/customer-portal/reset-password", err: { code: "23505" } });
      expect(first.err.message).toMatch(/^Failed query \(23505\): duplicate key value violates unique constraint/);
    } finally {
      await handle.close();
    }
  });

  it.each([
    ["GET /customer-portal/reset-password?token=abc&x=1 failed", "GET /customer-portal/reset-password failed"],
    ["https://site.example/rent/lease/4?token=abc", "https://site.example/rent/lease/4"],
    ["sent to ann.lee+x@mail.example.co", "sent to [email]"],
    ["card 4242 4242 4242 4242 declined", "card [number] declined"],
    ["code 23505 at 2026-11-24", "code 23505 at 2026-11-24"],
    ["why? because", "why? because"],
  ])("scrubText(%j)", (input, output) => {
    expect(scrubText(input)).toBe(output);
  });
});
