import { z } from "zod";
import { phoneDigits } from "../shared/phone";
import { CONTROL_MESSAGE, isCleanLine, isCleanText, NAME_CHARS_MESSAGE } from "../shared/text-rules";

/** The contact form and the coming-soon "notify me" form: one schema for browser and server. */
export const contactSchema = z.object({
  name: z
    .string({ error: "Enter your name." })
    .trim()
    .min(1, "Enter your name.")
    .max(100, "Your name can be at most 100 characters.")
    .refine(isCleanLine, NAME_CHARS_MESSAGE),
  email: z
    .string({ error: "Enter your email address." })
    .trim()
    .min(1, "Enter your email address.")
    .pipe(z.email("Enter a valid email address, like name@example.com.")),
  phone: z
    .string()
    .trim()
    .optional()
    .refine((v) => !v || phoneDigits(v) !== null, "Enter a 10-digit phone number, like (910) 555-0134."),
  location: z.string().trim().max(100, "Choose a location from the list.").refine(isCleanLine, "Choose a location from the list.").optional(),
  message: z
    .string({ error: "Enter your message." })
    .trim()
    .min(1, "Enter your message.")
    .max(5000, "Your message can be at most 5,000 characters.")
    .refine(isCleanText, CONTROL_MESSAGE),
});

/** Coming-soon sign-up: the message is optional. */
export const notifySchema = contactSchema.extend({
  message: z.string().trim().max(5000, "Your message can be at most 5,000 characters.").refine(isCleanText, CONTROL_MESSAGE).optional(),
});

