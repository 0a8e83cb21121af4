import { afterAll, beforeAll, beforeEach } from "vitest";
import net from "node:net";

export interface ReceivedMail {
  /** When the message was accepted (epoch ms). */
  at: number;
  from: string;
  to: string[];
  data: string;
}

export interface TestSmtpServer {
  port: number;
  received: ReceivedMail[];
  /** Stops listening and drops open connections: the port refuses connections (an SMTP outage). */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  /** True while listening. */
  isUp(): boolean;
  close(): Promise<void>;
}

/**
 * A minimal SMTP server on 127.0.0.1 (no TLS, no auth): enough of RFC 5321 for nodemailer to
 * deliver a message. Recipients containing "reject" are refused with 550. `down()` / `up()` make an
 * outage on the same port.
 */
export async function startSmtpServer(): Promise<TestSmtpServer> {
  const received: ReceivedMail[] = [];
  const sockets = new Set<net.Socket>();
  const onConnection = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    let buffer = "";
    let inData = false;
    let current: ReceivedMail = { at: 0, from: "", to: [], data: "" };
    const reply = (line: string) => socket.write(`${line}\r\n`);
    reply("220 test.local ESMTP");
    socket.on("data", (chunk) => {
      buffer += chunk.toString("utf8");
      while (true) {
        if (inData) {
          const end = buffer.indexOf("\r\n.\r\n");
          if (end < 0) return;
          current.data = buffer.slice(0, end);
          current.at = Date.now();
          buffer = buffer.slice(end + 5);
          inData = false;
          received.push(current);
          current = { at: 0, from: "", to: [], data: "" };
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
  };
  let server: net.Server | null = null;
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      const s = net.createServer(onConnection);
      s.once("error", reject);
      s.listen(port, "127.0.0.1", () => {
        server = s;
        resolve((s.address() as net.AddressInfo).port);
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      const s = server;
      server = null;
      for (const socket of sockets) socket.destroy();
      if (!s) return resolve();
      s.close(() => resolve());
    });
  const port = await listen(0);
  return {
    port,
    received,
    down: stop,
    up: async () => {
      if (!server) await listen(port);
    },
    isUp: () => server !== null,
    close: stop,
  };
}

/**
 * A test file's SMTP server: started once with SMTP_URL pointing at it (until the file ends), emptied
 * and listening again before each test. `current()` is the server.
 */
export function useSmtpServer(): { current: () => TestSmtpServer } {
  let smtp: TestSmtpServer | undefined;
  beforeAll(async () => {
    smtp = await startSmtpServer();
    process.env.SMTP_URL = `smtp://127.0.0.1:${smtp.port}`;
  });
  afterAll(async () => {
    delete process.env.SMTP_URL;
    await smtp?.close();
  });
  beforeEach(async () => {
    smtp!.received.length = 0;
    await smtp!.up();
  });
  return { current: () => smtp! };
}
