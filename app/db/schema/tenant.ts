import { boolean, index, integer, pgTable, serial, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { accounts } from "./account";
import { timestamps } from "./shared";

/**
 * A tenant: the fields of the account-creation form (spec §3). Email is stored lowercase and is
 * unique per account; phones are stored as ten digits; the web password only as a bcrypt hash.
 */
export const tenants = pgTable(
  "tenants",
  {
    id: serial().primaryKey(),
    accountId: integer()
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    firstName: text().notNull(),
    lastName: text().notNull(),
    email: text().notNull(),
    cellPhone: text().notNull(),
    webPwHash: text().notNull(),
    addr1: text("addr_1").notNull(),
    addr2: text("addr_2"),
    city: text().notNull(),
    region: text().notNull(),
    postalCode: text().notNull(),
    isMilitary: boolean().notNull().default(false),
    isCompany: boolean().notNull().default(false),
    isCommercial: boolean().notNull().default(false),
    altContactFirstName: text(),
    altContactLastName: text(),
    altContactPhone: text(),
    externalId: text(),
    /** When the one request to review the location was sent (issue 40, decision 501): never twice to one tenant. */
    reviewRequestedAt: timestamp({ withTimezone: true }),
    ...timestamps,
  },
  (t) => [
    uniqueIndex("tenants_account_email_idx").on(t.accountId, sql`lower(${t.email})`),
    index("tenants_email_idx").on(t.email),
  ],
);
