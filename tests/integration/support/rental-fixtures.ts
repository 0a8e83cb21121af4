/** Shared helpers for the move-in and reservation integration tests. */
import { afterAll, beforeAll, beforeEach } from "vitest";
import { and, asc, eq, sql } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { createTestDatabase } from "./db";
import type { Database } from "~/db/client.server";
import { locations, unitTypes, units } from "~/db/schema";
import type { AccountCreationInput } from "~/domain/shared/tenant-form";
import { toCardDetails, cardSchema } from "~/domain/payments/card-schema";
import { rentalLeaseText, quoteRental } from "~/services/rental/move-in.server";
import {
  getRental,
  saveDetails,
  saveProtection,
  saveSignature,
} from "~/services/rental/record.server";
import {
  loadRentalContext,
  type RentalContext,
} from "~/services/rental/context.server";

export const NOW = new Date("2026-11-22T15:00:00Z"); // 10:00 in Lumberton

let n = 0;
export function tenantDetails(overrides: Partial<AccountCreationInput> = {}) {
  n += 1;
  return {
    first_name: "Ada",
    last_name: "Lovelace",
    email: `ada.${process.pid}.${Date.now()}.${n}@example.com`,
    cell_phone: "(910) 555-0134", // as the form schema stores it
    addr_1: "1 Main St",
    addr_2: null,
    city: "Lumberton",
    region: "NC",
    postal_code: "28358",
    is_military: false,
    is_company: false,
    is_commercial: false,
    alt_contact_first_name: null,
    alt_contact_last_name: null,
    alt_contact_phone: null,
    ...overrides,
  };
}

export function card(number = "4242424242424242") {
  return toCardDetails(
    cardSchema({ year: 2026, month: 11 }).parse({
      card_number: number,
      exp_month: "12",
      exp_year: "2030",
      cvv: "123",
      name_on_card: "Ada Lovelace",
      billing_postal_code: "28358",
    }),
  );
}

/** Lumberton's unit type with the most available units (not parking), and its id. */
export async function lumbertonUnitType(
  db: Database,
  options: { category?: string } = {},
) {
  const [loc] = await db
    .select()
    .from(locations)
    .where(eq(locations.name, "Lumberton"));
  const rows = await db
    .select({
      id: unitTypes.id,
      category: unitTypes.category,
      available:
        sql<number>`count(*) filter (where ${units.status} = 'available')`.mapWith(
          Number,
        ),
    })
    .from(unitTypes)
    .innerJoin(units, eq(units.unitTypeId, unitTypes.id))
    .where(eq(unitTypes.locationId, loc!.id))
    .groupBy(unitTypes.id)
    .orderBy(asc(unitTypes.id));
  const pick = rows
    .filter((r) =>
      options.category
        ? r.category === options.category
        : r.category !== "parking",
    )
    .sort((a, b) => b.available - a.available)[0]!;
  return {
    locationId: loc!.id,
    unitTypeId: String(pick.id),
    available: pick.available,
  };
}

/** Leaves exactly `count` available units in the type (the others become unavailable). */
export async function leaveAvailable(
  db: Database,
  unitTypeId: string,
  count: number,
) {
  const free = await db
    .select({ id: units.id })
    .from(units)
    .where(
      and(
        eq(units.unitTypeId, Number(unitTypeId)),
        eq(units.status, "available"),
      ),
    )
    .orderBy(asc(units.name));
  for (const u of free.slice(count))
    await db
      .update(units)
      .set({ status: "unavailable" })
      .where(eq(units.id, u.id));
}

export async function ctxFor(
  db: Database,
  unitTypeId: string,
  now = NOW,
): Promise<RentalContext> {
  const ctx = await loadRentalContext(db, unitTypeId, now);
  if (!ctx) throw new Error("no rental context");
  return ctx;
}

/** Walks a rental through details, protection and signature; returns its id. */
export async function signedRental(
  db: Database,
  unitTypeId: string,
  options: {
    plan?: "first" | "none";
    details?: ReturnType<typeof tenantDetails>;
    now?: Date;
  } = {},
) {
  const now = options.now ?? NOW;
  const ctx = await ctxFor(db, unitTypeId, now);
  const details = options.details ?? tenantDetails();
  const id = await saveDetails(db, ctx, {
    existing: null,
    details,
    webPw: "secret1",
    now,
  });
  let rental = (await getRental(db, id, unitTypeId))!;
  const plans = await ctx.storage.listInsurancePlans();
  await saveProtection(
    db,
    ctx,
    rental,
    options.plan === "none" ? "none" : plans[0]!.id,
    now,
  );
  rental = (await getRental(db, id, unitTypeId))!;
  const q = await quoteRental(ctx, rental.insuranceChoice);
  await saveSignature(db, ctx, rental, {
    signedName: `${details.first_name} ${details.last_name}`,
    text: rentalLeaseText(ctx, details, q),
    ip: "203.0.113.9",
    now,
  });
  return { id, details, quote: q.quote };
}

/** The rental's details step as a visitor types it (the form's field names), for `email`. */
export function detailsFormFields(email: string): Record<string, string> {
  return {
    intent: "details",
    first_name: "Ada",
    last_name: "Lovelace",
    email,
    cell_phone: "(910) 555-0134",
    addr_1: "1 Main St",
    city: "Lumberton",
    region: "NC",
    postal_code: "28358",
    web_pw: "Tidy-Unit-42",
    confirm_web_pw: "Tidy-Unit-42",
  };
}

/**
 * Request bodies for a race that is really run: `racingBodies(n)` gives a maker of bodies none of
 * which is handed out until n of them have been asked for. A rental action reads its context
 * (availability) before it reads the form, so every visitor has read one unit free before any of
 * them tries to hold it, however the statements interleave. Use with `duplex: "half"`.
 */
export function racingBodies(
  n: number,
): (body: string) => ReadableStream<Uint8Array> {
  let asked = 0;
  let release!: () => void;
  const allAsked = new Promise<void>((resolve) => (release = resolve));
  return (body) => {
    let sent = false;
    return new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          if (sent) return controller.close();
          sent = true;
          if (++asked === n) release();
          await allAsked;
          controller.enqueue(new TextEncoder().encode(body));
        },
        // Pulled only when read (the default would pull once at once, before the action asks for the form).
      },
      { highWaterMark: 0 },
    );
  };
}

/**
 * The rush tests' database (rental-rush, rental-answer-reuse, rental-sold-out-cost): one database for
 * the file at NOW, and before each test Lumberton's unit type with every hold freed. The file keeps
 * its own `handle` and `unitTypeId` through the two setters.
 */
export function rushDatabase(setHandle: (handle: DatabaseHandle) => void, setUnitTypeId: (id: string) => void): void {
  let handle: DatabaseHandle | undefined;
  beforeAll(async () => {
    process.env.FAKE_NOW = NOW.toISOString();
    handle = await createTestDatabase();
    setHandle(handle);
  });
  afterAll(async () => {
    delete process.env.FAKE_NOW;
    await handle?.close();
  });
  beforeEach(async () => {
    const { unitTypeId } = await lumbertonUnitType(handle!.db);
    await handle!.db.update(units).set({ heldUntil: null, holdToken: null }).where(eq(units.unitTypeId, Number(unitTypeId)));
    setUnitTypeId(unitTypeId);
  });
}
