/**
 * The SMTP server of the fault tests: the integration tests' minimal server
 * (tests/integration/support/smtp-server.ts), which can be stopped (listener closed, open sessions cut: the
 * app sees ECONNREFUSED / ECONNRESET) and started again on the same port, plus a lookup by recipient.
 */
import { startSmtpServer as startTestSmtpServer, type ReceivedMail } from "../../integration/support/smtp-server";

export type { ReceivedMail };

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
  const smtp = await startTestSmtpServer();
  return {
    port: smtp.port,
    received: smtp.received,
    up: smtp.isUp,
    stop: smtp.down,
    start: smtp.up,
    to: (address) => smtp.received.filter((m) => m.to.some((t) => t.toLowerCase().includes(`<${address.toLowerCase()}>`))),
  };
}
