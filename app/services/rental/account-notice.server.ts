import type { Database } from "~/db/client.server";
import { sendEmail } from "../mail/outbox.server";
import { hitRateLimit } from "../web/rate-limit.server";

/** At most one notice an hour to one address, however many rentals are started with it. */
const ACCOUNT_NOTICE_WINDOW_MS = 60 * 60 * 1000;

/**
 * The rental's details step no longer says on the page that an e-mail has an account (issue 36,
 * decision 465): the answer is the same for everyone. The address's owner is told by e-mail instead —
 * they are the one who needs to know (to sign in and rent from the portal), and a stranger typing
 * their address learns nothing from the page. One notice an hour per address, so nobody's mailbox can
 * be flooded through the form.
 */
export async function tellAccountHolder(
  db: Database,
  input: { email: string; locationName: string; operatorName: string; origin: string; now: Date },
): Promise<void> {
  const email = input.email.trim().toLowerCase();
  const limit = await hitRateLimit(db, { key: `rental-account-notice:${email}`, limit: 1, windowMs: ACCOUNT_NOTICE_WINDOW_MS, now: input.now });
  if (!limit.allowed) return;
  await sendEmail(db, {
    to: email,
    subject: `Renting at ${input.locationName}? Sign in with your ${input.operatorName} account`,
    text:
      `Hello,\n\nSomeone (we hope you) started renting a storage unit at ${input.locationName} online with this e-mail address, which already has a customer portal account.\n` +
      `One e-mail address is one account, so the rental cannot be finished with it. To rent, sign in to the customer portal and rent from there, or call us:\n\n${input.origin}/customer-portal/login\n\n` +
      `If you forgot your password, the sign-in page can e-mail you a new link. If it was not you, you can ignore this e-mail: nothing was rented and your account has not changed.\n\n${input.operatorName}`,
  });
}
