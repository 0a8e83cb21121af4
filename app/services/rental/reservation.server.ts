/**
 * Reservations (issue 4): the short form keeps one unit for `reservation_days_valid` days; the
 * visitor gets an email with a cancel link (its token stored only as a SHA-256 hash). Expired
 * reservations are released when anything reads them and by `sweepExpiredReservations`.
 * docs/decisions/042-reservations.md.
 */
import crypto from "node:crypto";
import { asc } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { locations } from "~/db/schema";
import { reservationExpiresAt, reservationWindow } from "~/domain/rental/reservation";
import { monthlyRateFor } from "~/domain/site/rates";
import { formatPhone } from "~/domain/shared/phone";
import { storageFor } from "~/storage-software/index.server";
import type { ReservationRecord } from "~/storage-software/port";
import { sendEmail } from "../mail/outbox.server";
import { sha256 } from "./record.server";
import { unitDescription, unitNotOfferedOnlineMessage } from "../../domain/rental/rules";
import { type RentalContext } from "./context.server";
import type { ReservationAccountInput, ReservationInput } from "~/domain/rental/reservation";
import { tenantFromForm } from "~/domain/shared/tenant-form";
import { PORTAL_LOGIN_PATH } from "~/domain/payments/pay-bill-link";
import { hashPassword } from "~/platform/password.server";
import type { SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { commonPasswordError } from "~/domain/shared/common-passwords";
import { isHoneypotFilled } from "~/domain/web/form-fields";
import { reservationFormSchema } from "~/domain/rental/reservation";
import { EMAIL_TAKEN_MESSAGE, StorageValidationError, UnitUnavailableError } from "~/storage-software/errors";
import { limitAnonymousForm } from "../web/anonymous-limits.server";

/** Why reservations cannot be made for this unit type, or null. */
function reservationBlock(ctx: RentalContext): "reservations_off" | "coming_soon" | "hidden" | "sold_out" | null {
  if (!ctx.settings.is_reservations_enabled) return "reservations_off";
  if (ctx.location.status !== "Live") return "coming_soon";
  if (ctx.unitType.isHiddenOnline) return "hidden";
  if (ctx.unitType.availableCount < 1) return "sold_out";
  return null;
}

export function reservationBlockMessage(block: "reservations_off" | "coming_soon" | "hidden" | "sold_out", phone: string): string {
  switch (block) {
    case "reservations_off":
      return `Online reservations are not available at the moment. Please call the office at ${phone} to reserve a unit.`;
    case "coming_soon":
      return `This location is coming soon and cannot be reserved online yet. Call ${phone} to hear when it opens.`;
    case "hidden":
      return unitNotOfferedOnlineMessage(phone);
    case "sold_out":
      return `Sorry, this unit size is sold out. Please choose another size or call ${phone}.`;
  }
}

function cancelPath(reservationId: string, token: string): string {
  return `/reserve/cancel/${reservationId}?token=${encodeURIComponent(token)}`;
}

function confirmationPath(code: string): string {
  return `/reserve/confirmed/${code}`;
}

/** The full form's value (reservation short form flag off): it carries the tenant account to create. */
function isAccountForm(form: ReservationInput | ReservationAccountInput): form is ReservationAccountInput {
  return "web_pw" in form;
}

/**
 * Reserves a unit and emails the confirmation with the cancel link. With the full form the
 * reservation also creates the tenant's portal account (password kept only as a bcrypt hash).
 * Throws UnitUnavailableError, or StorageValidationError({ email }) when the email has an account.
 */
export async function reserveUnit(
  db: Database,
  ctx: RentalContext,
  input: { form: ReservationInput | ReservationAccountInput; idempotencyKey: string; now: Date; origin: string },
): Promise<{ reservation: ReservationRecord; cancelToken: string | null }> {
  const cancelToken = crypto.randomBytes(24).toString("base64url");
  const form = input.form;
  const tenant = isAccountForm(form) ? { ...tenantFromForm(form), webPwHash: await hashPassword(form.web_pw) } : null;
  const reservation = await ctx.storage.reserveUnit({
    unitTypeId: ctx.unitType.id,
    firstName: form.first_name,
    lastName: form.last_name,
    email: form.email,
    phone: isAccountForm(form) ? form.cell_phone : form.phone,
    desiredMoveInDate: form.desired_move_in_date,
    expiresAt: reservationExpiresAt(input.now, ctx.settings.reservation_days_valid),
    cancelTokenHash: sha256(cancelToken),
    confirmationCode: crypto.randomBytes(9).toString("base64url"),
    idempotencyKey: input.idempotencyKey,
    now: input.now,
    tenant,
  });
  // A repeated submit returns the first reservation: its email already went out.
  if (reservation.cancelTokenHash !== sha256(cancelToken)) return { reservation, cancelToken: null };
  const until = reservation.expiresAt.toLocaleString("en-US", { timeZone: ctx.location.timeZone, dateStyle: "full", timeStyle: "short" });
  await sendEmail(db, {
    locationId: ctx.location.id,
    to: reservation.email,
    subject: `Your reservation at ${ctx.operatorName} ${ctx.location.name}`,
    secrets: [`${input.origin}${cancelPath(reservation.id, cancelToken)}`, cancelToken],
    text: [
      `Hello ${reservation.firstName},`,
      "",
      `We have reserved unit ${reservation.unitName} (${unitDescription(ctx.unitType)}) at ${ctx.location.name}, ${ctx.location.address}, for you.`,
      `Desired move-in date: ${reservation.desiredMoveInDate}. We hold the unit until ${until}.`,
      "Please come to the office during office hours to finish your paperwork and get your gate access. Bring a photo ID.",
      "",
      `Confirmation code: ${reservation.confirmationCode}`,
      ...(reservation.tenantId
        ? ["", `Your customer portal account is ready: sign in at ${input.origin}${PORTAL_LOGIN_PATH} with this email address and the password you chose.`]
        : []),
      `Changed your mind? Cancel the reservation here: ${input.origin}${cancelPath(reservation.id, cancelToken)}`,
      "",
      `Questions? Call us at ${formatPhone(ctx.location.phoneNumber)}.`,
    ].join("\n"),
  });
  return { reservation, cancelToken };
}

/** Expires every overdue reservation of every location, freeing their units. Safe to run any time, twice. */
export async function sweepExpiredReservations(db: Database, now: Date): Promise<number> {
  const rows = await db
    .select({ id: locations.id, name: locations.name, software: locations.software, status: locations.status })
    .from(locations)
    .orderBy(asc(locations.id));
  let total = 0;
  for (const l of rows) total += await storageFor(db, l).expireReservations(now);
  return total;
}

/** A fresh idempotency key for a reservation form (a resubmitted form reserves once). */
function newIdempotencyKey(): string {
  return crypto.randomBytes(16).toString("base64url");
}

/**
 * What the reservation page (`/reserve/:unitTypeId`) shows (issue 21, decision 225): the unit and its
 * rate, how long it is kept, the window of move-in dates, which form, or why it cannot be reserved.
 */
export function reservePage(ctx: RentalContext, input: { csrfToken: string }) {
  const block = reservationBlock(ctx);
  const phone = formatPhone(ctx.location.phoneNumber);
  return {
    csrfToken: input.csrfToken,
    idempotencyKey: newIdempotencyKey(),
    unit: unitDescription(ctx.unitType),
    rate: monthlyRateFor(ctx.unitType, ctx.settings.is_web_rates_enabled),
    standardRate: ctx.unitType.standardRate,
    promotion: ctx.unitType.promotion.trim(),
    locationName: ctx.location.name,
    locationPath: `/locations/${ctx.location.urlSlug}`,
    phone,
    daysValid: ctx.settings.reservation_days_valid,
    window: reservationWindow(ctx.today, ctx.settings.reservation_days_valid),
    blocked: block ? reservationBlockMessage(block, phone) : null,
    // Spec §9 "reservation short form": on, name, email and phone; off, the account-creation form (decision 135).
    shortForm: ctx.settings.is_reservation_short_form_enabled,
  };
}

/** The passwords are never sent back into the page. */
const PASSWORDS = ["web_pw", "confirm_web_pw"];

interface ReservationSubmission {
  formData: FormData;
  clientIp: string;
  now: Date;
  /** The website's configured origin (the cancel link in the e-mail); asked only when a reservation is made. */
  origin: () => Promise<string>;
}

/** The reservation form's answer: the errors beside the fields (passwords never sent back) and a form-level message. */
interface ReservationFormAnswer {
  result: SubmissionResult<string[]> | null;
  formError: string | null;
}

type ReservationSubmitResult = { redirect: string } | { status: number; answer: ReservationFormAnswer };

/**
 * What a POST to `/reserve/:unitTypeId` does (issue 21, decision 225): the blocks, the form's rules,
 * the limit counted before the e-mail is looked up (decision 196), then the reservation, once per
 * idempotency key. No HTTP here: the route reads the request and turns the result into a Response.
 */
export async function submitReservation(db: Database, ctx: RentalContext, sub: ReservationSubmission): Promise<ReservationSubmitResult> {
  const { formData, now } = sub;
  const phone = formatPhone(ctx.location.phoneNumber);
  const block = reservationBlock(ctx);
  if (block) return { status: 409, answer: { result: null, formError: reservationBlockMessage(block, phone) } };
  if (isHoneypotFilled(formData)) return { redirect: `/locations/${ctx.location.urlSlug}` };
  const window = reservationWindow(ctx.today, ctx.settings.reservation_days_valid);
  const submission = parseWithZod(formData, { schema: reservationFormSchema(window, ctx.settings.is_reservation_short_form_enabled) });
  if (submission.status !== "success") return { status: 400, answer: { result: submission.reply({ hideFields: PASSWORDS }), formError: null } };
  const fieldError = (name: string, message: string) => ({ status: 400, answer: { result: submission.reply({ hideFields: PASSWORDS, fieldErrors: { [name]: [message] } }), formError: null } });
  if (isAccountForm(submission.value)) {
    const common = commonPasswordError(submission.value.web_pw);
    if (common) return fieldError("web_pw", common);
  }
  // Counted before the e-mail is looked up (decision 196).
  const limited = await limitAnonymousForm(db, "reservation", sub.clientIp, now);
  if (limited) return { status: 429, answer: { result: submission.reply({ formErrors: [limited], hideFields: PASSWORDS }), formError: limited } };
  if (isAccountForm(submission.value) && (await ctx.storage.isEmailRegistered(submission.value.email))) return fieldError("email", EMAIL_TAKEN_MESSAGE);
  const key = String(formData.get("idempotency_key") ?? "");
  const idempotencyKey = /^[A-Za-z0-9_-]{16,64}$/.test(key) ? key : newIdempotencyKey();
  try {
    const { reservation } = await reserveUnit(db, ctx, { form: submission.value, idempotencyKey, now, origin: await sub.origin() });
    return { redirect: confirmationPath(reservation.confirmationCode) };
  } catch (error) {
    if (error instanceof UnitUnavailableError) {
      return { status: 409, answer: { result: submission.reply({ hideFields: PASSWORDS }), formError: reservationBlockMessage("sold_out", phone) } };
    }
    if (error instanceof StorageValidationError) {
      return { status: 400, answer: { result: submission.reply({ hideFields: PASSWORDS, fieldErrors: error.fieldErrors }), formError: Object.keys(error.fieldErrors).length ? null : error.message } };
    }
    throw error;
  }
}
