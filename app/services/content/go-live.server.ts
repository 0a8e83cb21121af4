/**
 * The SiteLink go-live check from the console (issue 40, decision 681). A SiteLink location's
 * settings page shows its go-live state, its settings (never a secret), and the latest check with
 * each item in the operator's words and what to fix; an owner runs the check there (the same check
 * as `npm run sitelink:verify -- --test-mode-move-in`, always with its test move-in), and saves the
 * settings a check proposed (the card types SiteLink lists, the pay-method ids the site took).
 *
 * Owners only (the check writes at the operator's SiteLink: a test tenant and a test move-in; and a
 * failing check switches a live location's online rentals off). One check of a location at a time
 * (a lease row in `job_runs`); each owner at most `CHECKS_PER_HOUR`. The check is kept and audited in
 * ONE transaction. A check that cannot reach SiteLink says so, is kept and audited, and decides
 * nothing: the location's state stays what its latest check that reached SiteLink made it.
 */
import { and, eq, lt } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { jobRuns, locations, sitelinkSites, type GoLiveItem, type GoLiveSuggestions } from "~/db/schema";
import { formatDeskTime } from "~/domain/desk/time";
import { can } from "~/domain/staff/roles";
import { forgetStorageChoices, goLiveSaw, goLiveState, latestGoLiveCheck, recordGoLiveCheck, saveGoLiveSuggestions, verifySiteLinkLocation } from "~/storage-software/index.server";
import { recordAudit } from "../audit/events.server";
import { hitRateLimit } from "../web/rate-limit.server";
import { GONE_OR_OUT_OF_SCOPE } from "../web/responses.server";
import { auditActor, type SignedInStaff } from "../staff/context.server";

/** Checks one owner may start an hour (each one calls SiteLink some twenty times and writes a test move-in). */
const CHECKS_PER_HOUR = 20;
/** A check's lease on its location: longer than any check takes (every SiteLink call has its timeout); a lease left by a stopped process ends then. */
const LEASE_MS = 10 * 60_000;
const LEASE_PERIOD = new Date(0);

const TEST_CARD_ENDING: Record<string, string> = { visa: "1111", mastercard: "4444", discover: "1117", amex: "0005" };

interface GoLiveCheckView {
  when: string;
  by: string;
  passed: boolean;
  /** Why SiteLink could not be reached (the check decided nothing), or null. */
  unreachable: string | null;
  items: GoLiveItem[];
  suggested: GoLiveSuggestions;
  /** A demo seed's record, or a command run kept before the console listed items: its summary lines. */
  summary: string[];
}

export interface GoLivePanel {
  locationId: number;
  name: string;
  slug: string;
  onWebsite: boolean;
  settings: { endpoint: string; corpCode: string; locationCode: string; cards: string; cardTypes: string; payMethod: string };
  state: { live: boolean; words: string };
  latest: GoLiveCheckView | null;
  /** The member may run the check and save what it proposes (owners). */
  canRun: boolean;
  /** Option A: the card the test move-in sends to the site's processor, said before it is sent. */
  testCard: string | null;
}

const isOwner = (staff: SignedInStaff) => staff.scope.all && can(staff.role, "content.edit");

function stateWords(code: Awaited<ReturnType<typeof goLiveState>>["code"], when: string | null): string {
  switch (code) {
    case "passed":
      return `Live: the go-live check passed with these settings${when ? ` (${when})` : ""}. Online rentals and payments are on.`;
    case "failed":
      return `Not live: the latest check${when ? ` (${when})` : ""} did not pass. Online rentals and payments are off, and the location cannot be published, until a check passes.`;
    case "settings changed":
      return "Not live: the settings changed after the check that passed. Run the check again: online rentals and payments are off until it passes.";
    case "never checked":
      return "Not live: no go-live check has passed yet. Online rentals and payments are off, and the location cannot be published, until one passes.";
    default:
      return "This location has no SiteLink settings.";
  }
}

/** The location's go-live panel, or null (not a SiteLink location, or outside the member's locations). */
export async function goLivePanel(db: Database, staff: SignedInStaff, locationId: number): Promise<GoLivePanel | null> {
  if (!staff.scope.all && !staff.scope.locationIds.includes(locationId)) return null;
  const [row] = await db
    .select({ name: locations.name, slug: locations.urlSlug, software: locations.software, isPublished: locations.isPublished, timeZone: locations.timeZone, site: sitelinkSites })
    .from(locations)
    .innerJoin(sitelinkSites, eq(sitelinkSites.locationId, locations.id))
    .where(and(eq(locations.id, locationId), eq(locations.accountId, staff.accountId)));
  if (!row || row.software !== "sitelink") return null;
  const zone = row.timeZone.timeZoneId;
  const state = await goLiveState(db, locationId);
  const latest = await latestGoLiveCheck(db, locationId);
  const site = row.site;
  const cardTypes = Object.entries(site.cardTypeIds ?? {});
  const brand = (["visa", "mastercard", "discover", "amex"] as const).find((b) => site.cardTypeIds?.[b]);
  const pay = site.payMethodIds;
  return {
    locationId,
    name: row.name,
    slug: row.slug,
    onWebsite: row.isPublished,
    settings: {
      endpoint: site.endpoint,
      corpCode: site.corpCode,
      locationCode: site.locationCode,
      cards: site.cardChargedBy === "sitelink" ? "Charged by SiteLink's card processor (option A)" : "Charged by this website's card processor, recorded in SiteLink as cash (option B)",
      cardTypes: cardTypes.length ? cardTypes.map(([b, id]) => `${b} = ${id}`).join(", ") : "none set",
      payMethod: `card ${pay.card}, cash ${pay.cash}, check ${pay.check}`,
    },
    state: { live: state.live, words: stateWords(state.code, state.latest ? formatDeskTime(state.latest.checkedAt, zone) : null) },
    latest: latest
      ? {
          when: formatDeskTime(latest.checkedAt, zone),
          by: latest.saw.ranFrom === "console" ? (latest.saw.ranBy ?? "a staff member") : latest.source === "demo seed" ? "the demo seed" : "npm run sitelink:verify",
          passed: latest.passed,
          unreachable: latest.saw.unreachable ?? null,
          items: latest.saw.items ?? [],
          suggested: latest.saw.suggested ?? {},
          summary: latest.saw.items ? [] : [...(latest.saw.note ? [latest.saw.note] : []), ...latest.saw.differs.map((d) => `Differs: ${d}`), ...latest.saw.notChecked.map((n) => `Not checked: ${n}`)],
        }
      : null,
    canRun: isOwner(staff),
    testCard:
      site.cardChargedBy === "sitelink" && brand
        ? `The check's test move-in sends a ${brand === "mastercard" ? "Master Card" : brand[0]!.toUpperCase() + brand.slice(1)} test card (ending ${TEST_CARD_ENDING[brand]}) through SiteLink to this site's card processor, in SiteLink's test mode.`
        : null,
  };
}

type GoLiveOutcome = { ok: true } | { ok: false; status: 400 | 403 | typeof GONE_OR_OUT_OF_SCOPE | 409 | 429; message: string; field?: "tenantId" | "unitId" };

const ID = /^\d{1,9}$/;

/**
 * Runs the go-live check of the location (see the module comment). `tenantId`: the SiteLink TenantID
 * of a tenant with a rental, whose records are read (never written); `unitId`: a free unit for the
 * test move-in. Both optional.
 */
export async function runGoLiveCheck(
  db: Database,
  staff: SignedInStaff,
  locationId: number,
  input: { tenantId: string; unitId: string },
  now: Date,
): Promise<GoLiveOutcome> {
  if (!isOwner(staff)) return { ok: false, status: 403, message: "Only an owner may run the go-live check." };
  const panel = await goLivePanel(db, staff, locationId);
  if (!panel) return { ok: false, status: GONE_OR_OUT_OF_SCOPE, message: "This location has no SiteLink settings." };
  const tenantId = input.tenantId.trim();
  const unitId = input.unitId.trim();
  if (tenantId && !ID.test(tenantId)) return { ok: false, status: 400, field: "tenantId", message: "Enter the tenant's SiteLink TenantID, a number such as 10452, or leave it empty." };
  if (unitId && !ID.test(unitId)) return { ok: false, status: 400, field: "unitId", message: "Enter the unit's SiteLink UnitID, a number such as 1042, or leave it empty." };
  const limit = await hitRateLimit(db, { key: `go-live-check:staff:${staff.staffId}`, limit: CHECKS_PER_HOUR, windowMs: 60 * 60_000, now });
  if (!limit.allowed) return { ok: false, status: 429, message: `Too many go-live checks in a short time. Please wait ${limit.retryAfterMinutes} minutes and try again.` };

  const job = `go-live-check:${locationId}`;
  const holder = `staff:${staff.staffId}:${now.getTime()}`;
  await db.delete(jobRuns).where(and(eq(jobRuns.job, job), lt(jobRuns.startedAt, new Date(now.getTime() - LEASE_MS))));
  const won = await db.insert(jobRuns).values({ job, periodStart: LEASE_PERIOD, holder, startedAt: now }).onConflictDoNothing().returning({ job: jobRuns.job });
  if (!won.length) return { ok: false, status: 409, message: `A go-live check of ${panel.name} is running already. Wait for it to finish, then reload this page to see its result.` };
  try {
    const said: string[] = [];
    const report = await verifySiteLinkLocation(db, panel.slug, {
      now,
      testModeMoveIn: true,
      tenantId: tenantId || null,
      unitId: unitId || null,
      record: false,
      say: (line) => said.push(line),
    });
    await db.transaction(async (tx) => {
      await recordGoLiveCheck(tx, {
        locationId,
        passed: report.ok,
        source: "sitelink:verify",
        now,
        testTenantId: report.testTenantId,
        saw: goLiveSaw(report, { ranFrom: "console", ranBy: staff.name || staff.email }),
      });
      await recordAudit(tx, {
        ...auditActor(staff),
        action: "sitelink.go_live_checked",
        entity: "location",
        entityId: locationId,
        locationId,
        // What it found, never a secret (the report has none): the items that failed or were not checked.
        detail: {
          passed: report.ok,
          reachedSiteLink: !report.unreachable,
          ...(report.unreachable ? { unreachable: report.unreachable } : {}),
          differs: report.differs,
          notChecked: report.notChecked,
          testTenantId: report.testTenantId,
          ...(tenantId ? { tenantRead: tenantId } : {}),
          ...(unitId ? { unitAsked: unitId } : {}),
        },
        at: now,
      });
    });
    // A passing (or failing) check changes what the adapter allows: the next request asks again.
    forgetStorageChoices(db);
    return { ok: true };
  } finally {
    await db.delete(jobRuns).where(and(eq(jobRuns.job, job), eq(jobRuns.holder, holder)));
  }
}

/**
 * Saves the settings the location's latest check proposed (see the module comment), audited with
 * what they were. Nothing to save: refused with a message.
 */
export async function saveProposedSettings(db: Database, staff: SignedInStaff, locationId: number, now: Date): Promise<GoLiveOutcome> {
  if (!isOwner(staff)) return { ok: false, status: 403, message: "Only an owner may change the SiteLink settings." };
  const panel = await goLivePanel(db, staff, locationId);
  if (!panel) return { ok: false, status: GONE_OR_OUT_OF_SCOPE, message: "This location has no SiteLink settings." };
  const limit = await hitRateLimit(db, { key: `content-edit:staff:${staff.staffId}`, limit: 300, windowMs: 10 * 60_000, now });
  if (!limit.allowed) return { ok: false, status: 429, message: `Too many changes in a short time. Please wait ${limit.retryAfterMinutes} minutes and try again.` };
  const suggested = panel.latest?.suggested ?? {};
  if (!suggested.cardTypeIds && !suggested.payMethodIds) return { ok: false, status: 409, message: "The latest check proposes no settings: run the check again to see what it finds." };
  await db.transaction(async (tx) => {
    const saved = await saveGoLiveSuggestions(tx, locationId, suggested);
    if (!saved) return;
    await recordAudit(tx, {
      ...auditActor(staff),
      action: "sitelink.settings_changed",
      entity: "location",
      entityId: locationId,
      locationId,
      changes: {
        ...(saved.after.cardTypeIds ? { cardTypes: { before: saved.before.cardTypeIds ?? {}, after: saved.after.cardTypeIds } } : {}),
        ...(saved.after.payMethodIds ? { payMethodIds: { before: saved.before.payMethodIds ?? null, after: saved.after.payMethodIds } } : {}),
      },
      detail: { from: "the go-live check's proposal" },
      at: now,
    });
  });
  forgetStorageChoices(db);
  return { ok: true };
}
