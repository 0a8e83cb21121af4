import { z } from "zod";
import { phoneDigits } from "./phone";

/** The contact form and the coming-soon "notify me" form: one schema for browser and server. */
export const contactSchema = z.object({
  name: z
    .string({ error: "Enter your name." })
    .trim()
    .min(1, "Enter your name.")
    .max(100, "Your name can be at most 100 characters."),
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
  location: z.string().trim().optional(),
  message: z
    .string({ error: "Enter your message." })
    .trim()
    .min(1, "Enter your message.")
    .max(5000, "Your message can be at most 5,000 characters."),
});

/** Coming-soon sign-up: the message is optional. */
export const notifySchema = contactSchema.extend({
  message: z.string().trim().max(5000, "Your message can be at most 5,000 characters.").optional(),
});

export type ContactInput = z.infer<typeof contactSchema>;
