/**
 * Publish-to-visible through the cache in front (issue 41; bench/http.mjs --deployed runs it with tsx,
 * the servers' configuration in its environment): each round drafts a change of Lumberton's location
 * page (its meta description, through `saveDraftEdit`), makes nginx store the page in every encoding
 * (X-Cache-Status HIT), then presses the console's Publish button through nginx (GET /admin/changes for
 * the form token, POST it) and asks nginx for the anonymous page, in br, gzip and identity at once
 * every 5 ms, until all three show the change. Timed from the click (the POST sent) and from the
 * publish's answer (the 303), and the moment nginx first answered other than from its cache (the
 * purge had reached it) is noted.
 *
 *   tsx bench/publish-deployed.ts <database url> <public url through nginx> <console url through nginx> <rounds>
 *
 * Prints one line of JSON per round and a summary line.
 */
import { eq } from "drizzle-orm";
import { openDatabase } from "~/db/client.server";
import { locations } from "~/db/schema";
import { readEffectiveRecord, saveDraftEdit } from "~/services/content/changesets.server";
import { CSRF_FIELD } from "~/services/web/csrf.server";
import "../tests/support/localhost-names";
import { signedInOwner } from "./lib/staff-session";

const [databaseUrl, publicUrl, consoleUrl, roundsArg] = process.argv.slice(2);
const ROUNDS = Number(roundsArg ?? 10);
const PAGE = "/locations/lumberton-nc-28358";
const ENCODINGS = ["br", "gzip", "identity"];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const handle = openDatabase({ url: databaseUrl!, poolSize: 2 });
const [loc] = await handle.db.select().from(locations).where(eq(locations.urlSlug, "lumberton-nc-28358"));
const owner = await signedInOwner(handle.db, loc!.accountId, `bench-publisher-${Date.now()}`);

const anonymous = async (encoding: string) => {
  const r = await fetch(publicUrl + PAGE, { headers: { "Accept-Encoding": encoding } });
  return { text: await r.text(), cache: r.headers.get("x-cache-status") };
};

const rounds: { round: number; postMs: number; purgedAfterClickMs: number; visibleAfterClickMs: number; visibleAfterAnswerMs: number }[] = [];
for (let round = 1; round <= ROUNDS; round++) {
  const marker = `Deployed bench round ${round} ${Date.now()}.`;
  const before = await readEffectiveRecord(handle.db, owner.signedIn, "location", loc!.id);
  const draft = await saveDraftEdit(handle.db, owner.signedIn, { op: "update", entity: "location", recordId: loc!.id, values: { metaDescription: marker }, base: { metaDescription: before!.values.metaDescription } });
  if (!draft.ok) throw new Error(`draft edit refused: ${JSON.stringify(draft)}`);
  // nginx has the page (the old one) in every encoding.
  for (const encoding of ENCODINGS) {
    for (let i = 0; ; i++) {
      if ((await anonymous(encoding)).cache === "HIT") break;
      if (i > 100) throw new Error(`${PAGE} (${encoding}) never a HIT`);
      await sleep(20);
    }
  }
  const form = await fetch(`${consoleUrl}/admin/changes`, { headers: { Cookie: owner.cookie } });
  const token = new RegExp(`name="${CSRF_FIELD}" value="([^"]+)"`).exec(await form.text())?.[1];
  if (!token) throw new Error(`no form token on /admin/changes (${form.status})`);
  const click = performance.now();
  const posted = await fetch(`${consoleUrl}/admin/changes`, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: owner.cookie, Origin: consoleUrl!, Referer: `${consoleUrl}/admin/changes` },
    body: new URLSearchParams({ [CSRF_FIELD]: token, changesetId: String(draft.changesetId), intent: "publish" }),
  });
  const answered = performance.now();
  if (posted.status !== 303) throw new Error(`the publish answered ${posted.status}`);
  // When nginx first answers other than from its cache (the purge has reached it): splits the time.
  let purgedAt = Number.NaN;
  const visible = await Promise.all(
    ENCODINGS.map(async (encoding) => {
      for (;;) {
        const r = await anonymous(encoding);
        if (r.cache !== "HIT" && Number.isNaN(purgedAt)) purgedAt = performance.now();
        if (r.text.includes(marker)) return performance.now();
        if (performance.now() - click > 30_000) throw new Error(`${PAGE} (${encoding}) did not show the publish within 30 s`);
        await sleep(5);
      }
    }),
  );
  const last = Math.max(...visible);
  const line = { round, postMs: Math.round(answered - click), purgedAfterClickMs: Math.round(purgedAt - click), visibleAfterClickMs: Math.round(last - click), visibleAfterAnswerMs: Math.round(last - answered) };
  console.log(JSON.stringify(line));
  rounds.push(line);
}
const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { p50: s[Math.floor(s.length / 2)]!, max: s.at(-1)! };
};
console.log(
  JSON.stringify({
    summary: true,
    rounds: ROUNDS,
    postMs: stats(rounds.map((r) => r.postMs)),
    purgedAfterClickMs: stats(rounds.map((r) => r.purgedAfterClickMs)),
    visibleAfterClickMs: stats(rounds.map((r) => r.visibleAfterClickMs)),
    visibleAfterAnswerMs: stats(rounds.map((r) => r.visibleAfterAnswerMs)),
  }),
);
await handle.close();
process.exit(0);
