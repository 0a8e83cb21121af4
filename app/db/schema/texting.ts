import { sql } from "drizzle-orm";
import { boolean, index, integer, pgTable, serial, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { accounts } from "./account";
import { locations } from "./location";
import { tenants } from "./tenant";
import { leases } from "./lease";
import { staffMembers } from "./staff";
import { timestamps } from "./shared";

/**
 * Texting consent (issue 40, decision 490): every opt-in and opt-out as it was given, appended, never
 * changed. A phone's consent with an account is its newest row: texts go only to a phone whose newest
 * row says yes. `source` says where (the portal's profile, the rental's details step, a STOP or START
 * text, the desk), `locationId` at which location when known.
 */
export const textConsents = pgTable(
  "text_consents",
  {
    id: serial().primaryKey(),
    accountId: integer()
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    /** E.164 (`+19105550134`). */
    phone: text().notNull(),
    optedIn: boolean().notNull(),
    source: text({ enum: ["portal_profile", "rental_details", "inbound_keyword", "desk"] }).notNull(),
    /** The words the person agreed to, or the keyword they sent. */
    wording: text().notNull(),
    locationId: integer().references(() => locations.id, { onDelete: "set null" }),
    tenantId: integer().references(() => tenants.id, { onDelete: "set null" }),
    /** The rental (rental id) whose details step gave it. */
    rentalId: text(),
    givenAt: timestamp({ withTimezone: true }).notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("text_consents_phone_idx").on(t.accountId, t.phone, t.id)],
);

export const textDirections = ["outbound", "inbound"] as const;

/**
 * Every text sent or received (decision 490): the provider's id, the status its callbacks report,
 * and for a text sent, the consent row it relied on (null only for the answer to a keyword, which is
 * part of the keyword's handling).
 */
export const textMessages = pgTable(
  "text_messages",
  {
    id: serial().primaryKey(),
    accountId: integer()
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    locationId: integer().references(() => locations.id, { onDelete: "set null" }),
    direction: text({ enum: textDirections }).notNull(),
    /** E.164 numbers. */
    from: text().notNull(),
    to: text().notNull(),
    body: text().notNull(),
    /** What it is for: pay_link, lead_reply, keyword_reply, inbound. */
    purpose: text().notNull(),
    /** The provider's message id (SM…); null until the provider accepted it. */
    providerSid: text(),
    status: text().notNull(),
    errorCode: text(),
    consentId: integer().references(() => textConsents.id, { onDelete: "no action" }),
    tenantId: integer().references(() => tenants.id, { onDelete: "set null" }),
    /** The desk lead (`contact-12`, `rental-…`) it answers or answers to. */
    leadKey: text(),
    staffId: integer().references(() => staffMembers.id, { onDelete: "set null" }),
    ...timestamps,
  },
  (t) => [
    uniqueIndex("text_messages_provider_sid_idx").on(t.providerSid).where(sql`${t.providerSid} is not null`),
    index("text_messages_lead_idx").on(t.leadKey),
    index("text_messages_to_idx").on(t.accountId, t.to, t.id),
  ],
);

export const plannedTextKinds = ["bill_due", "autopay_declined", "move_out", "review_request"] as const;
export type PlannedTextKind = (typeof plannedTextKinds)[number];

/**
 * A text a job or a notice means to send (issue 40, decision 512): the due and declined-autopay
 * reminders of the billing run, the move-out confirmation, the review request (decision 501). One per lease, kind and `key` (the billing
 * date, the move-out date). Sent by the next run inside the texting hours, with the consent checked
 * then; `settledAt` and `outcome` say when and whether it went (`sent`, or why not), `textMessageId`
 * the text. What the text says is made when it is sent (a pay link is made fresh then).
 */
export const plannedTexts = pgTable(
  "planned_texts",
  {
    id: serial().primaryKey(),
    accountId: integer()
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    locationId: integer()
      .notNull()
      .references(() => locations.id, { onDelete: "cascade" }),
    tenantId: integer()
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    leaseId: integer()
      .notNull()
      .references(() => leases.id, { onDelete: "cascade" }),
    kind: text({ enum: plannedTextKinds }).notNull(),
    key: text().notNull(),
    plannedAt: timestamp({ withTimezone: true }).notNull(),
    settledAt: timestamp({ withTimezone: true }),
    outcome: text(),
    textMessageId: integer().references(() => textMessages.id, { onDelete: "set null" }),
  },
  (t) => [
    uniqueIndex("planned_texts_once_idx").on(t.leaseId, t.kind, t.key),
    index("planned_texts_unsettled_idx").on(t.plannedAt).where(sql`${t.settledAt} is null`),
  ],
);
