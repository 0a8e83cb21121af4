import { z } from "zod";

/**
 * The schemas of the staff forms that parse with Conform (decision 342): the same schema checks the
 * field in the browser and in the action. Rules that need the server (a wrong code, a limit) stay in
 * the services and join the reply as field or form errors.
 */
const CODE_MESSAGE = "Enter the 6-digit code from your app, or a recovery code.";

/** Sign-in step 2 and "Confirm it's you": a code from the app or a recovery code (checked on the server). */
export const staffCodeSchema = z.object({
  code: z.string({ error: CODE_MESSAGE }).trim().min(1, CODE_MESSAGE).transform((code) => code.slice(0, 40)),
});

