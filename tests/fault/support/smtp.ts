/**
 * A minimal SMTP server on 127.0.0.1 (no TLS, no auth), as in tests/integration/email-smtp.test.ts,
 * that can be stopped (listener closed, open sessions cut: the app sees ECONNREFUSED / ECONNRESET)
 * and started again on the same port.
 */
import net from "node:net";

export interface ReceivedMail {
  at: number;
  from: string;
  to: string[];
  data: string;
}

export interface SmtpServer {
  port: number;
  received: ReceivedMail[];
  up(): boolean;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Messages whose RCPT TO names this address. */
  to(address: string): ReceivedMail[];
}

export async function startSmtpServer(): Promise<SmtpServer> {
  const received: ReceivedMail[] = [];
  const sockets = new Set<net.Socket>();
  let server: net.Server | null = null;
  let port = 0;

  const handle = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    let buffer = "";
    let inData = false;
    let current: ReceivedMail = { at: 0, from: "", to: [], data: "" };
    const reply = (line: string) => socket.write(`${line}\r\n`);
    reply("220 fault.test ESMTP");
    socket.on("data", (chunk) => {
      buffer += chunk.toString("utf8");
      for (;;) {
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
        if (verb === "EHLO" || verb === "HELO") reply("250 fault.test");
        else if (verb === "MAIL") {
          current.from = line;
          reply("250 OK");
        } else if (verb === "RCPT") {
          current.to.push(line);
          reply("250 OK");
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
  };

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = net.createServer(handle);
      s.once("error", reject);
      s.listen(port, "127.0.0.1", () => {
        port = (s.address() as net.AddressInfo).port;
        server = s;
        resolve();
      });
    });
  await listen();

  return {
    get port() {
      return port;
    },
    received,
    up: () => server !== null,
    async stop() {
      const s = server;
      server = null;
      for (const socket of sockets) socket.destroy();
      if (s) await new Promise<void>((r) => s.close(() => r()));
    },
    async start() {
      if (!server) await listen();
    },
    to: (address) => received.filter((m) => m.to.some((t) => t.toLowerCase().includes(`<${address.toLowerCase()}>`))),
  };
}
