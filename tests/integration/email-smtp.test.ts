import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import net from "node:net";
import { eq } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { emailOutbox } from "~/db/schema";
import { sendEmail } from "~/services/email.server";
import { createTestDatabase } from "./db";

interface Received {
  from: string;
  to: string[];
  data: string;
}

/**
 * A minimal SMTP server on 127.0.0.1 (no TLS, no auth): enough of RFC 5321 for nodemailer to
 * deliver a message. Recipients containing "reject" are refused with 550.
 */
function startSmtpServer(): Promise<{ port: number; received: Received[]; close: () => Promise<void> }> {
  const received: Received[] = [];
  const server = net.createServer((socket) => {
    let buffer = "";
    let inData = false;
    let current: Received = { from: "", to: [], data: "" };
    const reply = (line: string) => socket.write(`${line}\r\n`);
    reply("220 test.local ESMTP");
    socket.on("data", (chunk) => {
      buffer += chunk.toString("utf8");
      while (true) {
        if (inData) {
          const end = buffer.indexOf("\r\n.\r\n");
          if (end < 0) return;
          current.data = buffer.slice(0, end);
          buffer = buffer.slice(end + 5);
          inData = false;
          received.push(current);
          current = { from: "", to: [], data: "" };
          reply("250 OK queued");
          continue;
        }
        const eol = buffer.indexOf("\r\n");
        if (eol < 0) return;
        const line = buffer.slice(0, eol);
        buffer = buffer.slice(eol + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === "EHLO" || verb === "HELO") reply("250 test.local");
        else if (verb === "MAIL") {
          current.from = line;
          reply("250 OK");
        } else if (verb === "RCPT") {
          if (/reject/i.test(line)) reply("550 No such user");
          else {
            current.to.push(line);
            reply("250 OK");
          }
        } else if (verb === "DATA") {
          inData = true;
          reply("354 End data with <CR><LF>.<CR><LF>");
        } else if (verb === "QUIT") {
          reply("221 Bye");
          socket.end();
        } else if (verb === "RSET" || verb === "NOOP") reply("250 OK");
        else reply("502 Not implemented");
      }
    });
    socket.on("error", () => {});
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as net.AddressInfo).port;
      resolve({ port, received, close: () => new Promise((r) => server.close(() => r())) });
    });
  });
}

let handle: DatabaseHandle;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
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

  it("records a refused email on its outbox row instead of failing", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const result = await sendEmail(handle.db, { to: "reject@example.com", subject: "S", text: "T" });
    expect(result.sent).toBe(false);
    const [row] = await handle.db.select().from(emailOutbox).where(eq(emailOutbox.id, result.id));
    expect(row!.sentAt).toBeNull();
    expect(row!.error).toMatch(/550|recipients/i);
    expect(logged).toHaveBeenCalledWith("Email could not be sent", expect.anything());
  });
});
