/**
 * The reservation short form (issue 4) and its rules: a unit is kept for `reservation_days_valid`
 * days from the moment it is reserved; the desired move-in date is from today to the last day the
 * reservation holds (docs/decisions/042-reservations.md).
 */
import { z } from "zod";
import { addDaysIso } from "../shared/calendar";
import { accountPasswordShape, passwordsMustMatch, phoneField, tenantContactShape } from "../shared/tenant-form";
import { isCleanLine, NAME_CHARS_MESSAGE } from "../shared/text-rules";

interface DateWindow {
  min: string;
  max: string;
}

/** Today .. today + days valid (local calendar dates). */
export function reservationWindow(today: string, daysValid: number): DateWindow {
  return { min: today, max: addDaysIso(today, Math.max(0, daysValid)) };
}

/** When the hold ends: days valid × 24 hours after the reservation is made. */
export function reservationExpiresAt(now: Date, daysValid: number): Date {
  return new Date(now.getTime() + Math.max(0, daysValid) * 24 * 60 * 60 * 1000);
}

const required = (what: string) => z.string({ error: `Enter your ${what}.` }).trim().min(1, `Enter your ${what}.`);

const desiredMoveInDate = (window: DateWindow) =>
  z
    .string({ error: "Choose your move-in date." })
    .trim()
    .regex(/^\d{4}-\d{2}-\d{2}$/, "Choose your move-in date.")
    .refine((v) => v >= window.min && v <= window.max, `Choose a move-in date from ${window.min} to ${window.max}.`);

/** The short form (reservation short form flag on): name, email, phone and the date. */
export function reservationSchema(window: DateWindow) {
  return z.object({
    first_name: required("first name").pipe(z.string().max(50, "First name can be at most 50 characters.").refine(isCleanLine, NAME_CHARS_MESSAGE)),
    last_name: required("last name").pipe(z.string().max(50, "Last name can be at most 50 characters.").refine(isCleanLine, NAME_CHARS_MESSAGE)),
    email: required("email address").pipe(z.email("Enter a valid email address, like name@example.com.")).transform((v) => v.toLowerCase()),
    phone: phoneField("phone number"),
    desired_move_in_date: desiredMoveInDate(window),
  });
}

export type ReservationInput = z.infer<ReturnType<typeof reservationSchema>>;

/**
 * The full form (reservation short form flag off): the account-creation form of spec §3 with the
 * rules of §5, and the date. The reservation creates the tenant's portal account
 * (docs/decisions/135-reservation-full-form.md).
 */
export function reservationAccountSchema(window: DateWindow) {
  return z
    .object({ ...tenantContactShape, ...accountPasswordShape, desired_move_in_date: desiredMoveInDate(window) })
    .superRefine(passwordsMustMatch);
}

export type ReservationAccountInput = z.infer<ReturnType<typeof reservationAccountSchema>>;

/** Which form the reservation page shows. */
export function reservationFormSchema(window: DateWindow, shortForm: boolean) {
  return shortForm ? reservationSchema(window) : reservationAccountSchema(window);
}
