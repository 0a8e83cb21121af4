/**
 * The draft's diff (issue 24, docs/decisions/318-draft-diff.md): every public URL whose page changes
 * when the draft is published, with a readable before/after of its text, and the fields the draft
 * changes.
 *
 * The URLs are the sitemap's (rendered live and in preview, so a page the draft adds or removes is
 * counted), and the paths the draft's redirect rules name (their answer is the redirect, decided
 * before any page is rendered, as the server does). Each page is rendered twice through the server's own request handler, without HTTP
 * (`RenderPublicPage`, given by server/react-router-handler.ts on the request context): once live, once inside
 * `withDraftApplied` (the same mechanism as preview mode, rolled back). Its text is the page's title,
 * its meta description and the visible text of <body> (less the preview banner), one line per block; the two texts are compared
 * line by line with jsdiff.
 */
import { diffLines } from "diff";
import { Parser } from "htmlparser2";
import { eq, sql } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { SiteCache } from "~/db/site-cache.server";
import { cachePurges, locations, websites } from "~/db/schema";
import { LAYOUT_LOCATION_COLUMNS } from "~/db/queries/site.server";
import { LOCATION_LIST_COLUMNS } from "~/db/queries/locations.server";
import { UNITS_LOCATION_COLUMNS } from "~/db/queries/units-locations.server";
import { readTaggedPages } from "~/db/queries/tagged-pages.server";
import { readWebsite } from "~/db/queries/cached-reads.server";
import { tagsForPath } from "~/domain/web/cache-tags";
import { externalRedirectHost } from "~/domain/site/redirects";
import { EDITABLE_ENTITIES, type EditableEntityName } from "~/domain/content/editable";
import { changesOf, currentDraftId, type ChangeRow } from "./changesets.server";
import { withDraftApplied } from "./preview.server";
import { resolveRedirect } from "../site/redirects.server";

/**
 * Renders one public path (with its query string) through the app, on the database given, reading
 * through `cache` when given (a site cache of this diff's own, never the server's: decision 631).
 */
export type RenderPublicPage = (path: string, db: Database, cache?: SiteCache) => Promise<{ status: number; body: string }>;

const BLOCK = new Set([
  "address", "article", "aside", "blockquote", "br", "caption", "dd", "details", "dialog", "div", "dl", "dt", "fieldset", "figcaption",
  "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "legend", "li", "main", "nav", "ol", "option", "p", "pre",
  "section", "summary", "table", "tbody", "tfoot", "thead", "tr", "ul", "button", "label",
]);
const INVISIBLE = new Set(["script", "style", "template", "noscript", "svg", "head", "select"]);

/**
 * The text a visitor reads on a page: "Title: …", "Description: …", then the visible text of <body>
 * (the announcement bar, the menus and the footer too, so a menu change lists every page it shows on;
 * the preview banner left out), one line per block or table row (whitespace collapsed; hidden elements, scripts and styles left out;
 * an image by its alt text).
 */
export function pageText(html: string): string {
  let title = "";
  let description = "";
  let inTitle = false;
  let inMain = 0;
  const hidden: boolean[] = [];
  let hiddenDepth = 0;
  const lines: string[] = [];
  let line = "";
  const flush = () => {
    const t = line.replace(/\s+/g, " ").trim();
    if (t) lines.push(t);
    line = "";
  };
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (name === "title") inTitle = true;
        if (name === "meta" && attrs.name === "description") description = attrs.content ?? "";
        if (name === "body") inMain++;
        const hides = INVISIBLE.has(name) || "hidden" in attrs || attrs["aria-hidden"] === "true" || (attrs.class ?? "").split(/\s+/).includes("preview-banner");
        hidden.push(hides);
        if (hides) hiddenDepth++;
        if (inMain > 0 && hiddenDepth === 0) {
          if (BLOCK.has(name)) flush();
          if (name === "img" && attrs.alt) line += ` ${attrs.alt} `;
          // A table row is one line, its cells apart: "Sat · 9:00 AM – 2:00 PM".
          if ((name === "td" || name === "th") && line.trim()) line += " · ";
        }
      },
      ontext(text) {
        if (inTitle) title += text;
        else if (inMain > 0 && hiddenDepth === 0) line += text;
      },
      onclosetag(name) {
        if (name === "title") inTitle = false;
        if (hidden.pop()) hiddenDepth--;
        if (inMain > 0 && hiddenDepth === 0 && BLOCK.has(name)) flush();
        if (name === "body" && inMain > 0) {
          flush();
          inMain--;
        }
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  flush();
  const clean = (s: string) => s.replace(/\s+/g, " ").trim();
  return [`Title: ${clean(title)}`, `Description: ${clean(description)}`, ...lines].join("\n");
}

export interface DiffLine {
  kind: "same" | "added" | "removed" | "skipped";
  text: string;
}

/** How many unchanged lines are kept around a change (the rest are counted, not shown). */
const CONTEXT_LINES = 2;

/**
 * The most line edits jsdiff looks for between two page texts (decision 661): two long texts that
 * share almost nothing (a page's whole text rewritten) are then shown as the old lines removed and the
 * new ones added, at once, instead of searching every alignment (jsdiff's work grows with the edits
 * times the lines).
 */
const MAX_EDIT_LENGTH = 1_000;

/** A line diff of two texts, unchanged runs cut to CONTEXT_LINES around each change. */
export function lineDiff(before: string, after: string): DiffLine[] {
  const a = before ? `${before}\n` : "";
  const b = after ? `${after}\n` : "";
  const parts = diffLines(a, b, { maxEditLength: MAX_EDIT_LENGTH }) ?? [
    { value: a, added: false, removed: true, count: 0 },
    { value: b, added: true, removed: false, count: 0 },
  ];
  const all: DiffLine[] = [];
  for (const part of parts) {
    if (!part.value) continue;
    const kind = part.added ? "added" : part.removed ? "removed" : "same";
    for (const text of part.value.replace(/\n$/, "").split("\n")) all.push({ kind, text });
  }
  // Kept: a changed line, and an unchanged one within CONTEXT_LINES of a change (one pass each way).
  const keep = all.map((l) => l.kind !== "same");
  for (let i = 0, last = -Infinity; i < all.length; i++) {
    if (all[i]!.kind !== "same") last = i;
    else if (i - last <= CONTEXT_LINES) keep[i] = true;
  }
  for (let i = all.length - 1, next = Infinity; i >= 0; i--) {
    if (all[i]!.kind !== "same") next = i;
    else if (next - i <= CONTEXT_LINES) keep[i] = true;
  }
  const out: DiffLine[] = [];
  for (let i = 0; i < all.length; i++) {
    if (keep[i]) {
      out.push(all[i]!);
      continue;
    }
    let j = i;
    while (j < all.length && !keep[j]) j++;
    out.push({ kind: "skipped", text: `${j - i} unchanged line${j - i === 1 ? "" : "s"}` });
    i = j - 1;
  }
  return out;
}

interface PageDiff {
  path: string;
  change: "changed" | "added" | "removed";
  lines: DiffLine[];
}

interface FieldDiff {
  entity: string;
  record: string;
  op: ChangeRow["op"];
  field: string;
  before: string;
  after: string;
}

interface DraftDiff {
  changesetId: number;
  pages: PageDiff[];
  /** How many public URLs were compared. */
  compared: number;
  fields: FieldDiff[];
}

/** The paths of a rendered sitemap (its <loc> URLs, whatever their origin). */
export function sitemapPaths(xml: string): string[] {
  const out: string[] = [];
  for (const m of xml.matchAll(/<loc>([^<]+)<\/loc>/g)) {
    const loc = m[1]!.replace(/&(amp|lt|gt|apos|quot);/g, (_x, e: string) => ({ amp: "&", lt: "<", gt: ">", apos: "'", quot: '"' })[e]!);
    try {
      const url = new URL(loc);
      out.push(`${url.pathname}${url.search}`);
    } catch {
      // Not a URL: not a page.
    }
  }
  return out;
}

/** A page's text as compared: its text, or its status when it is not a page (a 404, a redirect). */
function textOf(page: { status: number; body: string }): string {
  return page.status === 200 ? pageText(page.body) : `(answered ${page.status})`;
}

/**
 * What a visitor gets at `path` on this database: the redirect when a forced rule sends it elsewhere
 * (the server decides those before the page is rendered, so a page the draft redirects reads as the
 * redirect) or when a rule that is not forced names a path with no page (a 404), else the page's text.
 */
async function answerText(db: Database, path: string, render: RenderPublicPage, primaryHost: string | undefined, cache: SiteCache): Promise<string> {
  const url = new URL(path, "http://localhost");
  // The website row through this side's cache (read once per side, not once per page: decision 661).
  const website = await readWebsite({ db, siteCache: cache });
  const redirect = await resolveRedirect(db, { host: undefined, pathname: url.pathname, search: url.search }, website, { siteCache: cache });
  const moved = (r: { status: number; location: string }) => `(redirects with ${r.status} to ${r.location}${externalNote(externalRedirectHost(r.location, primaryHost))})`;
  if (redirect?.forced) return moved(redirect);
  const page = await render(path, db, cache);
  // A rule that is not forced moves the path only where no page answers.
  if (redirect && page.status === 404) return moved(redirect);
  return textOf(page);
}

/** The paths a draft's redirect rules name (before and after), so a changed rule lists its URL. */
function redirectPaths(changes: readonly ChangeRow[]): string[] {
  return changes
    .filter((c) => c.entity === "redirect")
    .flatMap((c) => [(c.base as Record<string, unknown> | null)?.fromPath, (c.values as Record<string, unknown>).fromPath])
    .filter((p): p is string => typeof p === "string" && p.startsWith("/"));
}

/** A redirect target off the site says so (issue 36), in the list of changed fields and the pages' text. */
const externalNote = (host: string | null): string => (host ? ` — external: leaves the site for ${host}` : "");

const shown = (value: unknown): string => {
  if (value === null || value === undefined || value === "") return "(empty)";
  if (typeof value === "boolean") return value ? "Yes" : "No";
  if (typeof value === "string" || typeof value === "number") return String(value);
  const json = JSON.stringify(value);
  return json.length > 300 ? `${json.slice(0, 300)}…` : json;
};

const NAME_FIELDS = ["name", "title", "heading", "question", "websiteName", "displayText", "label", "days", "hostname", "fromPath", "street1", "date"];

function recordName(change: ChangeRow, locationNames: ReadonlyMap<number, string>): string {
  const values = { ...(change.base ?? {}), ...change.values } as Record<string, unknown>;
  const name = NAME_FIELDS.map((f) => values[f]).find((v) => typeof v === "string" && v.trim() !== "") as string | undefined;
  const id = change.recordId != null ? `#${change.recordId}` : "new";
  const where = change.locationId != null ? locationNames.get(change.locationId) : undefined;
  return [where, name ? `${id} (${name})` : id].filter(Boolean).join(", ");
}

const OWNER_COLUMNS = new Set(["websiteId", "accountId"]);

/** The draft's changes, one line per field: entity, record, field, before → after. */
function fieldDiffs(changes: readonly ChangeRow[], locationNames: ReadonlyMap<number, string> = new Map(), primaryHost?: string): FieldDiff[] {
  const out: FieldDiff[] = [];
  for (const change of changes) {
    const entity = EDITABLE_ENTITIES[change.entity as EditableEntityName];
    const label = entity?.label ?? change.entity;
    const fieldLabel = (f: string) => entity?.fields[f]?.label ?? f;
    const record = recordName(change, locationNames);
    if (change.op === "delete") {
      out.push({ entity: label, record, op: "delete", field: "(whole record)", before: "exists", after: "deleted" });
      continue;
    }
    for (const [field, after] of Object.entries(change.values)) {
      // A new record's owner column (its website, its account) is set by the server, not edited.
      if (OWNER_COLUMNS.has(field)) continue;
      const before = change.op === "create" ? null : (change.base as Record<string, unknown> | null)?.[field];
      const note = (v: unknown) => (change.entity === "redirect" && field === "toPath" && typeof v === "string" ? externalNote(externalRedirectHost(v, primaryHost)) : "");
      out.push({ entity: label, record, op: change.op, field: fieldLabel(field), before: change.op === "create" ? "(new)" : shown(before) + note(before), after: shown(after) + note(after) });
    }
  }
  return out;
}

const comparedPaths = (livePaths: readonly string[], previewPaths: readonly string[], ruled: readonly string[]) => [...new Set([...livePaths, ...previewPaths, ...ruled])];

/**
 * Whether a location is on the website at all (decision 620): every public read of locations filters on
 * it (`publishedLocation`: the layout, the lists, the listings), so a change of it reaches all of them.
 */
const PUBLISHED_FIELDS = ["isPublished"] as const;

/**
 * The cache tags the draft touches (decision 570's triggers, decision 631): applied in this preview
 * transaction, the triggers queued them in `cache_purges`, rolled back with it. `locations` (every
 * page's layout) only when a location's change touches what the layout shows of it (or whether it is
 * on the website at all).
 */
async function tagsTouched(tx: Database, changes: readonly ChangeRow[]): Promise<Set<string>> {
  const rows = await tx.selectDistinct({ tag: cachePurges.tag }).from(cachePurges).where(sql`${cachePurges}.xmin = pg_current_xact_id()::xid`);
  const tags = new Set(rows.map((r) => r.tag));
  const layoutFields = new Set([...Object.keys(LAYOUT_LOCATION_COLUMNS), ...PUBLISHED_FIELDS]);
  const layoutChanged = changes.some((c) => c.entity === "location" && (c.op !== "update" || Object.keys(c.values).some((f) => layoutFields.has(f))));
  if (!layoutChanged) tags.delete("locations");
  return tags;
}

/**
 * What the pages other than a location's own page read of it (decision 661), by the read models that
 * read it: the lists of locations (the home page, /view-locations, the sitemap: `listLocations`, with
 * the address), the unit listings (/units, the size guide, the unit type pages: `listUnitsLocations` and
 * the storage software's catalogue, with the address, the unit types and their units). A page of
 * another kind that carries a location's tag reads anything of it.
 */
type Reader = "list" | "listing" | "unit-type-page";
const READERS: ReadonlyMap<string, Reader> = new Map([
  ["/", "list"],
  ["/view-locations", "list"],
  ["/sitemap.xml", "list"],
  ["/units", "listing"],
  ["/size-guide", "listing"],
]);
const UNIT_TYPE_PAGE = /^\/locations\/[^/]+\/units\/[^/]+$/;
const readerOf = (path: string): Reader | null => READERS.get(path) ?? (UNIT_TYPE_PAGE.test(path) ? "unit-type-page" : null);

const LIST_FIELDS: ReadonlySet<string> = new Set([...Object.keys(LOCATION_LIST_COLUMNS), ...PUBLISHED_FIELDS]);
const LISTING_FIELDS: ReadonlySet<string> = new Set([...Object.keys(UNITS_LOCATION_COLUMNS), ...PUBLISHED_FIELDS]);
/** The entities only a location's own page shows (its amenities, hours, special hours, photos). */
const OWN_PAGE_ENTITIES: ReadonlySet<string> = new Set(["amenity", "hoursBlock", "hoursItem", "specialHours", "locationImage"]);
/** A unit type's fields shown on its own card and page only (a unit type page lists the others by size and name). */
const OWN_CARD_FIELDS: ReadonlySet<string> = new Set(["description", "images"]);

/**
 * Which readers of a location a change at it reaches, besides the location's own page (which
 * carries its tag and shows everything of it). A unit type's own page carries its own tag too.
 */
function readersReached(change: ChangeRow): ReadonlySet<Reader> {
  const fields = Object.keys(change.values);
  if (OWN_PAGE_ENTITIES.has(change.entity)) return new Set();
  if (change.entity === "location" && change.op === "update") {
    const out = new Set<Reader>();
    if (fields.some((f) => LIST_FIELDS.has(f))) out.add("list");
    if (fields.some((f) => LISTING_FIELDS.has(f))) {
      out.add("listing");
      out.add("unit-type-page");
    }
    return out;
  }
  if (change.entity === "unitType" && change.op === "update" && fields.every((f) => OWN_CARD_FIELDS.has(f))) return new Set(["listing"]);
  if (change.entity === "unitType") return new Set(["listing", "unit-type-page"]);
  return new Set(["list", "listing", "unit-type-page"]);
}

/**
 * For each location tag the draft touches, the readers its changes reach (decision 661). A location
 * tag touched by no change at that location (nothing explains it) reaches every reader.
 */
function locationReach(changes: readonly ChangeRow[], touched: ReadonlySet<string>): Map<string, ReadonlySet<Reader>> {
  const reach = new Map<string, ReadonlySet<Reader>>();
  // A change of a location's record not placed at its location: the tags alone decide.
  if (changes.some((c) => c.locationId == null && EDITABLE_ENTITIES[c.entity as EditableEntityName]?.location.kind !== "account")) return reach;
  for (const tag of touched) {
    const m = /^location-(\d+)$/.exec(tag);
    if (!m) continue;
    const at = changes.filter((c) => c.locationId === Number(m[1]));
    reach.set(tag, at.length ? new Set(at.flatMap((c) => [...readersReached(c)])) : new Set<Reader>(["list", "listing", "unit-type-page"]));
  }
  return reach;
}

/**
 * Whether a page may read differently after the draft: added or removed by it, named by a redirect
 * rule it changes, a page the tags do not know, or a page whose tags the draft touches. Any other
 * page shows nothing the draft changes (decision 570: a page carries the tag of everything it shows).
 * A location's tag counts for a page other than the location's own only when the changes at that
 * location reach what that page reads of it (decision 661).
 */
function mayChange(
  path: string,
  livePaths: readonly string[],
  previewPaths: readonly string[],
  ruled: readonly string[],
  tagged: ReadonlyMap<string, readonly string[]>,
  touched: ReadonlySet<string>,
  reach: ReadonlyMap<string, ReadonlySet<Reader>>,
): boolean {
  if (!livePaths.includes(path) || !previewPaths.includes(path) || ruled.includes(path)) return true;
  const key = path.split("?")[0]!;
  if (!tagged.has(key)) return true;
  const reader = readerOf(key);
  // The location's own page (and a page of any other kind) reads anything of the location.
  return tagsForPath(tagged, key).some((t) => touched.has(t) && (reader === null || !reach.has(t) || reach.get(t)!.has(reader)));
}

/**
 * How long one preview transaction of the diff renders pages before it is rolled back and the next
 * one opens (decision 631): on PGlite every other request waits for it (one connection, decision 319).
 */
const PREVIEW_BATCH_MS = 250;

/**
 * The account's draft diff (see the module comment), or null when there is no draft. Decision 631
 * (issue 39: 2.3–4.5 s for a draft of 20 records): each side reads through a site cache of its own, so
 * what every page reads (the website, the layout, the locations, the content) is read once per side
 * instead of once per page; the preview side renders as many pages as fit in PREVIEW_BATCH_MS in one
 * transaction that applies the draft once (then rolled back, as every preview), instead of one
 * transaction and one application of the draft per page. Decision 661: a location's tag counts only
 * for the pages that read what its changes change (`mayChange`), and the live side renders while the
 * preview side does. `everyPage`: compare every page of the site (the tests' check that the pages
 * left out would not have changed).
 */
export async function draftDiff(db: Database, accountId: number, render: RenderPublicPage, options: { everyPage?: boolean } = {}): Promise<DraftDiff | null> {
  const changesetId = await currentDraftId(db, accountId);
  if (changesetId === null) return null;
  const [changes, [site], names] = await Promise.all([
    changesOf(db, changesetId),
    db.select({ domain: websites.domain }).from(websites).where(eq(websites.accountId, accountId)),
    db.select({ id: locations.id, name: locations.name }).from(locations).where(eq(locations.accountId, accountId)),
  ]);
  const primaryHost = site?.domain;
  const ruled = redirectPaths(changes);

  const liveCache = new SiteCache();
  const livePaths = sitemapPaths((await render("/sitemap.xml", db, liveCache)).body);
  const tagged = await readTaggedPages({ db, siteCache: liveCache });

  // The live side renders the pages that may change, through a cache of its own, as soon as they are
  // known and while the preview side renders them (decision 661): it never waits for a preview
  // transaction, which never waits for it (on PGlite its statements wait for the transaction's end).
  let pathsKnown!: (paths: string[]) => void;
  let pathsUnknown!: (error: unknown) => void;
  const known = new Promise<string[]>((resolve, reject) => ((pathsKnown = resolve), (pathsUnknown = reject)));
  const before = new Map<string, string>();
  const liveSide = (async () => {
    for (const path of await known) before.set(path, livePaths.includes(path) || ruled.includes(path) ? await answerText(db, path, render, primaryHost, liveCache) : "");
  })();

  // The preview side: the sitemap and what the draft touches, then each page that shows it, in as few
  // transactions as the time bound allows.
  const preview: { paths: string[] | null } = { paths: null };
  let afterPaths: string[] = [];
  const after = new Map<string, string>();
  const previewSide = (async () => {
    while (preview.paths === null || after.size < afterPaths.length) {
      await withDraftApplied(db, changesetId, async (tx) => {
        const cache = new SiteCache();
        const started = performance.now();
        if (preview.paths === null) {
          preview.paths = sitemapPaths((await render("/sitemap.xml", tx, cache)).body);
          const touched = await tagsTouched(tx, changes);
          const reach = locationReach(changes, touched);
          afterPaths = comparedPaths(livePaths, preview.paths, ruled).filter((p) => options.everyPage || mayChange(p, livePaths, preview.paths!, ruled, tagged, touched, reach));
          pathsKnown(afterPaths);
        }
        for (const path of afterPaths) {
          if (after.has(path)) continue;
          if (!preview.paths!.includes(path) && !ruled.includes(path)) {
            after.set(path, "");
            continue;
          }
          if (performance.now() - started > PREVIEW_BATCH_MS) break;
          after.set(path, await answerText(tx, path, render, primaryHost, cache));
        }
      });
    }
  })().catch((error: unknown) => {
    pathsUnknown(error);
    throw error;
  });
  await Promise.all([previewSide, liveSide]);

  const paths = comparedPaths(livePaths, preview.paths!, ruled);
  const pages: PageDiff[] = [];
  for (const path of afterPaths) {
    const beforeText = before.get(path) ?? "";
    const afterText = after.get(path) ?? "";
    if (beforeText === afterText) continue;
    pages.push({ path, change: beforeText === "" ? "added" : afterText === "" ? "removed" : "changed", lines: lineDiff(beforeText, afterText) });
  }
  return { changesetId, pages, compared: paths.length, fields: fieldDiffs(changes, new Map(names.map((l) => [l.id, l.name])), primaryHost) };
}
