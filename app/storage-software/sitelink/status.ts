/**
 * What `npm run sitelink:status` shows (issue 11 §3): per location, which adapter serves it and why,
 * its SiteLink coordinates (never a secret: only where each secret comes from and whether it
 * resolves), the last sync, the last full sync, the last error, and the write-journal rows that need
 * attention (unknown outcomes, pending calls older than a write timeout, recent failures).
 */
import { and, asc, desc, eq, gte, isNull, lt, or, sql } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { DEFAULT_PAY_METHOD_IDS, locations, sitelinkSites, sitelinkSyncState, sitelinkWrites, type SiteLinkGoLiveSaw } from "~/db/schema";
import { goLiveState } from "./go-live";
import { DEFAULT_WRITE_TIMEOUT_MS } from "./client";
import { shownFields } from "./journal";
import { chooseAdapter, loadSiteLinkSettings, settingsProblems } from "./settings";
import { rawEnv, type EnvSource } from "~/platform/env.server";

interface JournalAttention {
  idempotencyKey: string;
  operation: string;
  state: string;
  startedAt: string;
  lastError: string | null;
  /** The row's identifiers an operator looks up (journal.ts JOURNAL_SHOWN_FIELDS); never its payload. */
  ids: Record<string, string>;
}

export interface LocationStatus {
  locationId: number;
  name: string;
  software: string;
  adapter: "local" | "sitelink";
  reason: string;
  settings: null | {
    endpoint: string;
    corpCode: string;
    locationCode: string;
    corpUser: string;
    passwordFrom: string;
    apiKeyFrom: string;
    cardChargedBy: string;
    testMode: boolean;
    payMethodIds: { card: number; cash: number; check: number };
    /** "ok", or why the secrets do not resolve (no value in the message). */
    secrets: string;
    /** Why the server refuses these settings (an http:// endpoint in production, a secret's variable name); empty when accepted. */
    refused: string[];
  };
  sync: null | {
    lastSyncedAt: string | null;
    lastFullSyncAt: string | null;
    lastAttemptAt: string | null;
    lastError: string | null;
    lastErrorAt: string | null;
    consecutiveFailures: number;
  };
  attention: JournalAttention[];
  /** The go-live check (issue 37): whether online rentals and payments are on, why, and what the latest check saw. */
  goLive: null | { live: boolean; reason: string; checkedAt: string | null; source: string | null; passed: boolean | null; saw: SiteLinkGoLiveSaw | null };
}

export interface SiteLinkStatus {
  generatedAt: string;
  locations: LocationStatus[];
  needsAttention: boolean;
}

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

export async function collectSiteLinkStatus(db: Database, now: Date, env: EnvSource = rawEnv()): Promise<SiteLinkStatus> {
  const rows = await db
    .select({ id: locations.id, name: locations.name, software: locations.software })
    .from(locations)
    .orderBy(asc(locations.id));
  const out: LocationStatus[] = [];
  const stale = new Date(now.getTime() - 2 * DEFAULT_WRITE_TIMEOUT_MS);
  const recent = new Date(now.getTime() - 24 * 3600_000);
  for (const loc of rows) {
    const { choice, reason } = await chooseAdapter(db, loc.id);
    const [site] = await db.select().from(sitelinkSites).where(eq(sitelinkSites.locationId, loc.id));
    const [sync] = await db.select().from(sitelinkSyncState).where(eq(sitelinkSyncState.locationId, loc.id));
    if (loc.software !== "sitelink" && !site && !sync) continue;
    let secrets = "ok";
    const refused = site ? settingsProblems(site, env) : [];
    if (refused.length) secrets = "not checked: the settings are refused";
    else if (site) {
      try {
        await loadSiteLinkSettings(db, loc.id, env);
      } catch (error) {
        secrets = error instanceof Error ? error.message : String(error);
      }
    }
    const attention = await db
      .select()
      .from(sitelinkWrites)
      .where(
        and(
          eq(sitelinkWrites.locationId, loc.id),
          // A row marked resolved at the back office no longer needs attention (decision 261).
          isNull(sitelinkWrites.resolvedAt),
          or(
            eq(sitelinkWrites.state, "unknown"),
            and(eq(sitelinkWrites.state, "pending"), lt(sitelinkWrites.startedAt, stale)),
            and(eq(sitelinkWrites.state, "failed"), gte(sitelinkWrites.startedAt, recent)),
            and(eq(sitelinkWrites.state, "failed"), sql`${sitelinkWrites.externalIds} ? 'attention'`),
          ),
        ),
      )
      .orderBy(desc(sitelinkWrites.startedAt))
      .limit(50);
    const goLive = site ? await goLiveState(db, loc.id) : null;
    out.push({
      locationId: loc.id,
      name: loc.name,
      software: loc.software,
      adapter: choice,
      reason,
      settings: site
        ? {
            endpoint: site.endpoint,
            corpCode: site.corpCode,
            locationCode: site.locationCode,
            corpUser: site.corpUser,
            passwordFrom: site.passwordEnv ? `environment variable ${site.passwordEnv}` : "encrypted in the database",
            apiKeyFrom: site.apiKeyEnv ? `environment variable ${site.apiKeyEnv}` : site.apiKeyEncrypted ? "encrypted in the database" : "none",
            cardChargedBy: site.cardChargedBy === "sitelink" ? "SiteLink's processor (A)" : "our gateway, recorded in SiteLink (B)",
            testMode: site.testMode,
            payMethodIds: { ...DEFAULT_PAY_METHOD_IDS, ...(site.payMethodIds ?? {}) },
            secrets,
            refused,
          }
        : null,
      sync: sync
        ? {
            lastSyncedAt: iso(sync.lastSyncedAt),
            lastFullSyncAt: iso(sync.lastFullSyncAt),
            lastAttemptAt: iso(sync.lastAttemptAt),
            lastError: sync.lastError,
            lastErrorAt: iso(sync.lastErrorAt),
            consecutiveFailures: sync.consecutiveFailures,
          }
        : null,
      attention: attention.map((w) => ({
        idempotencyKey: w.idempotencyKey,
        operation: w.operation,
        state: w.state,
        startedAt: w.startedAt.toISOString(),
        lastError: w.lastError,
        ids: shownFields(w.externalIds ?? {}),
      })),
      goLive: goLive
        ? {
            live: goLive.live,
            reason: goLive.reason,
            checkedAt: iso(goLive.latest?.checkedAt),
            source: goLive.latest?.source ?? null,
            passed: goLive.latest?.passed ?? null,
            saw: goLive.latest?.saw ?? null,
          }
        : null,
    });
  }
  const needsAttention = out.some(
    (l) =>
      // A failure the adapter marked for the operator (e.g. a move-in refused with -2 while the unit
      // was free: the site's pay-method ids, decision 180) needs attention like an unknown outcome.
      l.attention.some((a) => a.state !== "failed" || Boolean(a.ids.attention)) ||
      (l.adapter === "sitelink" && ((l.sync?.consecutiveFailures ?? 0) > 0 || !l.sync?.lastSyncedAt || l.goLive?.live === false)) ||
      (l.settings !== null && (l.settings.secrets !== "ok" || (l.settings.refused ?? []).length > 0)),
  );
  return { generatedAt: now.toISOString(), locations: out, needsAttention };
}

/** How long ago, in words ("3 min ago"). */
function ago(isoTime: string | null, now: Date): string {
  if (!isoTime) return "never";
  const s = Math.max(0, Math.round((now.getTime() - new Date(isoTime).getTime()) / 1000));
  const words = s < 90 ? `${s} s ago` : s < 5400 ? `${Math.round(s / 60)} min ago` : s < 172800 ? `${Math.round(s / 3600)} h ago` : `${Math.round(s / 86400)} days ago`;
  return `${isoTime} (${words})`;
}

/** The status as text for a terminal. */
export function formatSiteLinkStatus(status: SiteLinkStatus, now: Date): string {
  const lines: string[] = [`SiteLink status at ${status.generatedAt}`];
  if (!status.locations.length) lines.push("", "No location uses SiteLink.");
  for (const l of status.locations) {
    lines.push("", `${l.name} (location ${l.locationId}, software ${l.software}): ${l.adapter === "sitelink" ? "SiteLink adapter" : "local adapter"} — ${l.reason}`);
    if (l.settings) {
      const s = l.settings;
      lines.push(`  endpoint        ${s.endpoint}`);
      lines.push(`  corp / location ${s.corpCode} / ${s.locationCode}, user ${s.corpUser}`);
      lines.push(`  password        ${s.passwordFrom}; API key: ${s.apiKeyFrom}; secrets: ${s.secrets}`);
      lines.push(`  card charged by ${s.cardChargedBy}${s.testMode ? "; TEST MODE" : ""}`);
      for (const r of s.refused ?? []) lines.push(`  REFUSED         ${r}`);
      if (!s.refused?.length && s.endpoint.startsWith("http:")) lines.push("  note            an http:// endpoint is accepted outside production only (NODE_ENV=production refuses it)");
      lines.push(`  pay-method ids  card=${s.payMethodIds.card} cash=${s.payMethodIds.cash} check=${s.payMethodIds.check} (MoveIn iPayMethod)`);
    }
    if (l.goLive) {
      const g = l.goLive;
      lines.push(`  go-live         ${g.live ? "LIVE: online rentals and payments on" : "OFF: online rentals and payments off (the office's phone is shown)"} — ${g.reason}`);
      if (g.saw) {
        if (g.saw.note) lines.push(`    ${g.saw.note}`);
        if (g.saw.checked.length) lines.push(`    checked: ${g.saw.checked.join(", ")}`);
        if (g.saw.payMethod.works !== null) lines.push(`    pay method: iPayMethod ${g.saw.payMethod.works} taken${g.saw.payMethod.reading ? ` (the ${g.saw.payMethod.reading} reading)` : ""}`);
        for (const t of g.saw.testMoveIn) lines.push(`    test move-in: ${t}`);
        if (g.saw.differs.length) lines.push(`    differs: ${g.saw.differs.join(", ")}`);
        if (g.saw.notChecked.length) lines.push(`    not checked: ${g.saw.notChecked.join("; ")}`);
      }
    }
    if (l.sync) {
      lines.push(`  last sync       ${ago(l.sync.lastSyncedAt, now)}`);
      lines.push(`  last full sync  ${ago(l.sync.lastFullSyncAt, now)}`);
      if (l.sync.lastError) lines.push(`  last error      ${l.sync.lastError} at ${l.sync.lastErrorAt} (${l.sync.consecutiveFailures} failure(s) in a row)`);
    } else if (l.adapter === "sitelink") {
      lines.push("  last sync       never");
    }
    if (l.attention.length) {
      lines.push(`  journal rows needing attention (${l.attention.length}):`);
      for (const a of l.attention) {
        const ids = Object.entries(a.ids ?? {})
          .map(([k, v]) => `${k}=${v}`)
          .join(" ");
        lines.push(`    ${a.state.padEnd(8)} ${a.operation} ${a.idempotencyKey} started ${a.startedAt}${ids ? ` [${ids}]` : ""}${a.lastError ? ` — ${a.lastError}` : ""}`);
      }
    } else if (l.adapter === "sitelink" || l.settings) {
      lines.push("  journal         nothing needs attention");
    }
  }
  lines.push("", status.needsAttention ? "Something needs attention (see above)." : "All good.");
  return lines.join("\n");
}
