import nodemailer, { type Transporter } from "nodemailer";
import { eq } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { emailOutbox } from "~/db/schema";
import { env } from "~/env.server";

export interface OutgoingEmail {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

let transport: Transporter | null | undefined;
function getTransport() {
  if (transport === undefined) transport = env().SMTP_URL ? nodemailer.createTransport(env().SMTP_URL) : null;
  return transport;
}

/**
 * Sends an email. Every message is first written to the outbox table (the office's record, and what
 * tests read); it is then sent through SMTP when SMTP_URL is set, or logged in development.
 * A failure to send is recorded on the outbox row, never thrown at the visitor.
 */
export async function sendEmail(db: Database, email: OutgoingEmail): Promise<{ id: number; sent: boolean }> {
  const [row] = await db.insert(emailOutbox).values(email).returning({ id: emailOutbox.id });
  const id = row!.id;
  const t = getTransport();
  if (!t) {
    if (env().NODE_ENV === "development") console.log(`[email] to=${email.to} subject=${email.subject}\n${email.text}`);
    return { id, sent: false };
  }
  try {
    await t.sendMail({ from: env().MAIL_FROM, ...email });
    await db.update(emailOutbox).set({ sentAt: new Date() }).where(eq(emailOutbox.id, id));
    return { id, sent: true };
  } catch (error) {
    console.error("Email could not be sent", error);
    await db
      .update(emailOutbox)
      .set({ error: error instanceof Error ? error.message : String(error) })
      .where(eq(emailOutbox.id, id));
    return { id, sent: false };
  }
}
