/**
 * "Add a location" in the console (issue 40, decisions 620–623). An owner gives the location's name,
 * status, address, time zone, phone and text message numbers, gate and office hours, up to
 * `NEW_LOCATION_PHOTOS` photos, and how its units are kept: demo units (stocked at once, decision 034)
 * or SiteLink settings (saved as `sitelink:configure` saves them; the location goes online only
 * through a passed go-live check, decision 470). The photos are read as the photos page reads them
 * (decision 680) before anything is saved. In ONE transaction: the location (unpublished), its
 * address, hours, accepted cards, photos, its units or SiteLink settings, the draft's change that
 * publishes it, and the audit rows. It is not on the website until the draft is published (decision
 * 620); preview shows it meanwhile. Its photos, amenities, messages and links are then edited on its
 * console pages like any location's, through the same draft.
 */
import type { SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { and, asc, eq } from "drizzle-orm";
import type { Database, Transaction } from "~/db/client.server";
import { addresses, hoursBlocks, hoursItems, locationImages, locations, paymentTypes, redirects, websites } from "~/db/schema";
import type { Image } from "~/db/schema/shared";
import { NEW_LOCATION_PHOTOS } from "~/domain/content/media";
import { HOURS_BLOCKS, hoursLinesOf, newLocationSchema, newLocationSlug, photoFields, timeZoneRecord, type NewLocationInput } from "~/domain/content/new-location";
import { can } from "~/domain/staff/roles";
import { CARD_BRAND_LABELS } from "~/domain/payments/cards";
import { saveSiteLinkSettings, stockDemoUnits } from "~/storage-software/index.server";
import { draftLocationPublication } from "./changesets.server";
import { readPhotoUploads, type PhotoSlotReply } from "./media-edits.server";
import { recordAudit } from "../audit/events.server";
import { hitRateLimit } from "../web/rate-limit.server";
import { auditActor, type SignedInStaff } from "../staff/context.server";

/** At most this many locations added per owner an hour (a location is a big write; a slip repeats it). */
const ADDS_PER_HOUR = 20;

type NewLocationOutcome =
  | { ok: true; locationId: number; slug: string }
  /** `photos`: each photo field's messages and the file it received (kept, so it need not be chosen again). */
  | { ok: false; status: 400 | 403 | 429; result: SubmissionResult<string[]>; photos: PhotoSlotReply[] };

/** What each photo field sent. */
function photoInputs(formData: FormData) {
  return Array.from({ length: NEW_LOCATION_PHOTOS }, (_, i) => {
    const names = photoFields(i + 1);
    const text = (name: string, max: number) => {
      const v = formData.get(name);
      return typeof v === "string" ? v.slice(0, max) : "";
    };
    return { file: formData.get(names.file), media: text(names.media, 300) || null, alt: text(names.alt, 1000), decorative: formData.get(names.decorative) === "1" };
  });
}

/** The photo fields' messages as the form's field errors (the error summary links to them). */
function photoErrors(replies: readonly PhotoSlotReply[]): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  replies.forEach((r, i) => {
    const names = photoFields(i + 1);
    if (r.errors.file) errors[names.file] = [r.errors.file];
    if (r.errors.alt) errors[names.alt] = [r.errors.alt];
  });
  return errors;
}

/** The password and API key typed for SiteLink are never sent back to the browser. */
const HIDDEN = ["sitelinkPassword", "sitelinkApiKey"];

/** SiteLink's own rules on its settings (the endpoint, the secrets' names, the key that seals a typed password), refused as field errors. */
class SettingsRefused extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

function settingsField(message: string, v: NewLocationInput): string {
  if (/API key: |API_KEY/.test(message) && !/password: /.test(message)) return "sitelinkApiKeyEnv";
  // No key to seal a typed secret with: beside the one typed (the API key when the password is in a variable).
  if (/SITELINK_SECRET_KEY/.test(message) && !v.sitelinkPassword && v.sitelinkApiKey) return "sitelinkApiKey";
  if (/password|SITELINK_SECRET_KEY|secret/i.test(message)) return "sitelinkPasswordEnv";
  return "sitelinkEndpoint";
}

const isUniqueViolation = (error: unknown) => {
  const e = error as { code?: string; cause?: { code?: string } };
  return e?.code === "23505" || e?.cause?.code === "23505";
};

/** Parses and checks the form (the schema, then what needs the database); saves nothing. */
function parseNewLocation(formData: FormData) {
  return parseWithZod(formData, { schema: newLocationSchema, disableAutoCoercion: true });
}

/** Adds a location (see the module comment). Owners only: anyone else gets 403 and nothing is read from the form. */
export async function addLocation(db: Database, staff: SignedInStaff, formData: FormData, now: Date): Promise<NewLocationOutcome> {
  const submission = parseNewLocation(formData);
  if (!staff.scope.all || !can(staff.role, "content.edit")) {
    return { ok: false, status: 403, result: submission.reply({ formErrors: ["Only an owner may add a location."], hideFields: HIDDEN }), photos: [] };
  }
  // The photos first, whatever else the form says: a good file is stored and kept for the next try.
  const photos = await readPhotoUploads(db, staff, photoInputs(formData), now);
  const refuse = (fieldErrors: Record<string, string[]>, status: 400 | 429 = 400, formErrors?: string[]) => ({
    ok: false as const,
    status,
    result: submission.reply({ fieldErrors: { ...photoErrors(photos.replies), ...fieldErrors }, ...(formErrors ? { formErrors } : {}), hideFields: HIDDEN }),
    photos: photos.replies,
  });
  if (submission.status !== "success" || !photos.ok) return refuse({});
  // Counted once the form is valid (a location is about to be written): correcting typos costs nothing.
  const limit = await hitRateLimit(db, { key: `location-add:staff:${staff.staffId}`, limit: ADDS_PER_HOUR, windowMs: 60 * 60_000, now });
  if (!limit.allowed) return refuse({}, 429, [`Too many locations added in a short time. Please wait ${limit.retryAfterMinutes} minutes and try again.`]);
  const v = submission.value;
  const slug = newLocationSlug(v);

  const taken = await db.select({ name: locations.name }).from(locations).where(eq(locations.urlSlug, slug));
  if (taken[0]) return refuse({ postal: [slugTakenMessage(slug, taken[0].name)] });
  const forced = await forcedRedirectAt(db, staff.accountId, `/locations/${slug}`);
  if (forced) return refuse({ postal: [`The address /locations/${slug} is redirected to ${forced} (Redirects): remove that redirect first, or the location's page could not be reached.`] });

  try {
    const locationId = await db.transaction(async (tx) => {
      const template = await templateLocation(tx, staff.accountId);
      const [row] = await tx
        .insert(locations)
        .values({
          accountId: staff.accountId,
          name: v.name,
          urlSlug: slug,
          status: v.status,
          software: v.software === "sitelink" ? "sitelink" : "no_api",
          phoneNumber: v.phoneNumber,
          sms: v.sms,
          timeZone: timeZoneRecord(v.timeZone),
          reviewSettings: { batch_id: null, status: "get-results", total_reviews: 0, rating: 0 },
          metaTitle: `Self Storage in ${v.city}, ${v.stateProvince}`.slice(0, 70),
          metaTagline: v.status === "Live" ? `Storage units in ${v.city}, ${v.stateProvince}` : `Coming soon to ${v.city}, ${v.stateProvince}`,
          // The operator's own wording, as at their first location (decision 622); edited on the location's page.
          rentalSuccessMessage: template?.rentalSuccessMessage ?? "",
          reservationSuccessMessage: template?.reservationSuccessMessage ?? "",
          moveOutConfirmationMessage: template?.moveOutConfirmationMessage ?? "",
          autopayTerms: template?.autopayTerms ?? "",
          isPublished: false,
        })
        .returning({ id: locations.id });
      const id = row!.id;
      await tx.insert(addresses).values({ locationId: id, street1: v.street1, street2: v.street2 || null, city: v.city, stateProvince: v.stateProvince, postal: v.postal, country: "US" });
      for (const block of HOURS_BLOCKS) {
        const [b] = await tx.insert(hoursBlocks).values({ locationId: id, type: block.type, isAvailable: true, displayText: block.heading }).returning({ id: hoursBlocks.id });
        const lines = hoursLinesOf(v as Record<string, unknown>, block.type);
        await tx.insert(hoursItems).values(lines.map((l) => ({ hoursBlockId: b!.id, ...l, idJsonFormattedText: JSON.stringify(l) })));
      }
      // The operator's accepted cards (spec §9): Visa, Master Card and Discover.
      await tx.insert(paymentTypes).values(
        (Object.entries(CARD_BRAND_LABELS) as Array<[keyof typeof CARD_BRAND_LABELS, string]>).map(([brand, label]) => ({ locationId: id, value: brand, label, category: brand })),
      );
      await savePhotos(tx, id, photos.images);
      const storage = await connectStorage(tx, id, slug, v);
      await draftLocationPublication(tx, staff, id);
      await recordAudit(tx, {
        ...auditActor(staff),
        action: "location.created",
        entity: "location",
        entityId: id,
        locationId: id,
        changes: {
          name: { before: null, after: v.name },
          urlSlug: { before: null, after: slug },
          status: { before: null, after: v.status },
          software: { before: null, after: v.software === "sitelink" ? "sitelink" : "no_api" },
          timeZone: { before: null, after: v.timeZone },
        },
        // Never a secret: the SiteLink password's variable name at most.
        detail: { slug, storage, published: false, photos: photos.images.map((i) => i.src) },
        at: now,
      });
      return id;
    });
    return { ok: true, locationId, slug };
  } catch (error) {
    if (error instanceof SettingsRefused) return refuse({ [error.field]: [error.message] });
    if (isUniqueViolation(error)) return refuse({ postal: [slugTakenMessage(slug, null)] });
    throw error;
  }
}

function slugTakenMessage(slug: string, name: string | null): string {
  return `${name ? `${name} is` : "A location is"} already at /locations/${slug}: a location's address on the website is its city, state and ZIP code, so two cannot share them.`;
}

/** The account's first location: its messages are the new one's first wording. */
async function templateLocation(db: Pick<Database, "select">, accountId: number) {
  const [row] = await db
    .select({
      rentalSuccessMessage: locations.rentalSuccessMessage,
      reservationSuccessMessage: locations.reservationSuccessMessage,
      moveOutConfirmationMessage: locations.moveOutConfirmationMessage,
      autopayTerms: locations.autopayTerms,
    })
    .from(locations)
    .where(eq(locations.accountId, accountId))
    .orderBy(asc(locations.id))
    .limit(1);
  return row ?? null;
}

/** A forced redirect of the account's website from this path, if any (it would hide the location's page). */
async function forcedRedirectAt(db: Database, accountId: number, path: string): Promise<string | null> {
  const [row] = await db
    .select({ toPath: redirects.toPath })
    .from(redirects)
    .innerJoin(websites, eq(websites.id, redirects.websiteId))
    .where(and(eq(websites.accountId, accountId), eq(redirects.fromPath, path), eq(redirects.isForced, true)))
    .limit(1);
  return row?.toPath ?? null;
}

/**
 * The photos given on the form, as the location's own photos in the form's order (decision 680):
 * saved with the location like its address and hours (it is not on the website until the draft is
 * published), not as draft changes that a discarded draft would drop while the location stays.
 */
async function savePhotos(tx: Transaction, locationId: number, images: readonly Image[]): Promise<void> {
  if (!images.length) return;
  await tx
    .insert(locationImages)
    .values(images.map((i, index) => ({ locationId, index, alt: i.alt, title: null, src: i.src, srcWebp: i.src_webp, width: i.width, height: i.height })));
}

/** Demo units stocked, or SiteLink's settings saved (their own rules refuse as field errors). What the audit says of it. */
async function connectStorage(tx: Transaction, locationId: number, slug: string, v: NewLocationInput): Promise<Record<string, unknown>> {
  if (v.software === "demo") {
    const made = await stockDemoUnits(tx, { id: locationId, slug });
    return { kind: "demo units", ...made };
  }
  try {
    // The transaction has the database's methods: the settings are saved with the location, or not at all.
    await saveSiteLinkSettings(tx as unknown as Database, {
      locationId,
      endpoint: v.sitelinkEndpoint,
      corpCode: v.sitelinkCorpCode,
      locationCode: v.sitelinkLocationCode,
      corpUser: v.sitelinkUser,
      ...(v.sitelinkPasswordEnv ? { passwordEnv: v.sitelinkPasswordEnv } : { password: v.sitelinkPassword }),
      ...(v.sitelinkApiKeyEnv ? { apiKeyEnv: v.sitelinkApiKeyEnv } : v.sitelinkApiKey ? { apiKey: v.sitelinkApiKey } : {}),
    });
  } catch (error) {
    // A database error is not the settings' fault: it goes up as it is.
    const e = error as { code?: unknown; cause?: unknown };
    if (!(error instanceof Error) || e.code !== undefined || e.cause !== undefined) throw error;
    const message = error.message;
    throw new SettingsRefused(settingsField(message, v), message);
  }
  return { kind: "sitelink", endpoint: v.sitelinkEndpoint, corpCode: v.sitelinkCorpCode, locationCode: v.sitelinkLocationCode, passwordEnv: v.sitelinkPasswordEnv || null, apiKey: v.sitelinkApiKeyEnv ? `in ${v.sitelinkApiKeyEnv}` : v.sitelinkApiKey ? "stored encrypted" : "none" };
}

/**
 * "Put it in the draft again" on the page of a location added from the console whose draft was
 * discarded (decision 620): the draft gets `isPublished: true` again. Null (not found) for a location
 * outside the member's scope or one already on the website.
 */
export async function redraftLocationPublication(db: Database, staff: SignedInStaff, locationId: number): Promise<boolean> {
  if (!staff.scope.all && !staff.scope.locationIds.includes(locationId)) return false;
  return db.transaction(async (tx) => {
    const [loc] = await tx
      .select({ isPublished: locations.isPublished })
      .from(locations)
      .where(and(eq(locations.id, locationId), eq(locations.accountId, staff.accountId)));
    if (!loc || loc.isPublished) return false;
    await draftLocationPublication(tx, staff, locationId);
    return true;
  });
}
