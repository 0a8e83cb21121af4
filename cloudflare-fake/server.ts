/**
 * A local stand-in for Cloudflare's cache purge API (issue 41, decision 571), which the app's purge
 * adapter (app/platform/shared-cache-purge.server.ts) talks to over HTTP when CLOUDFLARE_API_BASE
 * points here. Only what the adapter uses, answered as Cloudflare answers it:
 * - `POST /client/v4/zones/{zone_id}/purge_cache` with `Authorization: Bearer <token>` and a JSON
 *   body `{"tags": [...]}`: 200 `{"success": true, "errors": [], "messages": [], "result": {"id": zone}}`;
 *   a missing or wrong token 403 (code 10000, "Authentication error"); another zone 404 (code 7003);
 *   a body without 1–30 tags, or a tag over 1,024 characters, 400 (code 1012 / 1019).
 * Control (tests): `purges` (every accepted purge, in order), `failNext(n)` (the next n purges answer
 * 500, as an outage of Cloudflare's API would), `reset()`.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface FakePurge {
  zoneId: string;
  tags: string[];
  at: number;
}

export interface RunningCloudflareFake {
  url: string;
  zoneId: string;
  apiToken: string;
  purges: FakePurge[];
  /** Every tag purged so far, in order, without repeats. */
  purgedTags(): string[];
  failNext(count: number): void;
  reset(): void;
  close(): Promise<void>;
}

const DEFAULT_ZONE_ID = "0123456789abcdef0123456789abcdef";
const DEFAULT_API_TOKEN = "gatehouse_fake_cloudflare_token_0000";

type Answer = { status: number; body: unknown };
const failure = (status: number, code: number, message: string): Answer => ({ status, body: { success: false, errors: [{ code, message }], messages: [], result: null } });

export async function startCloudflareFake(options: { port?: number; zoneId?: string; apiToken?: string } = {}): Promise<RunningCloudflareFake> {
  const zoneId = options.zoneId ?? DEFAULT_ZONE_ID;
  const apiToken = options.apiToken ?? DEFAULT_API_TOKEN;
  const purges: FakePurge[] = [];
  let failing = 0;

  function answer(method: string, url: string, authorization: string | undefined, raw: string): Answer {
    const match = /^\/client\/v4\/zones\/([^/]+)\/purge_cache$/.exec(url);
    if (!match || method !== "POST") return failure(404, 7000, "No route for that URI");
    if (authorization !== `Bearer ${apiToken}`) return failure(403, 10000, "Authentication error");
    if (match[1] !== zoneId) return failure(404, 7003, `Could not route to /zones/${match[1]}/purge_cache, perhaps your object identifier is invalid?`);
    if (failing > 0) {
      failing--;
      return failure(500, 10000, "Internal error");
    }
    let body: { tags?: unknown };
    try {
      body = JSON.parse(raw) as { tags?: unknown };
    } catch {
      return failure(400, 1012, "Request must contain one of \"purge_everything\", \"files\", \"tags\", \"hosts\" or \"prefixes\"");
    }
    const tags = body.tags;
    if (!Array.isArray(tags) || tags.length === 0 || tags.some((t) => typeof t !== "string" || t.length === 0)) {
      return failure(400, 1012, "Request must contain one of \"purge_everything\", \"files\", \"tags\", \"hosts\" or \"prefixes\"");
    }
    if (tags.length > 30) return failure(400, 1019, "Too many tags: at most 30 a request");
    if (tags.some((t: string) => t.length > 1024)) return failure(400, 1019, "A tag is longer than 1024 characters");
    purges.push({ zoneId, tags: tags as string[], at: Date.now() });
    return { status: 200, body: { success: true, errors: [], messages: [], result: { id: zoneId } } };
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const { status, body } = answer(req.method ?? "GET", req.url ?? "/", req.headers.authorization, Buffer.concat(chunks).toString("utf8"));
      res.writeHead(status, { "Content-Type": "application/json" });
      res.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    zoneId,
    apiToken,
    purges,
    purgedTags: () => [...new Set(purges.flatMap((p) => p.tags))],
    failNext(count) {
      failing = count;
    },
    reset() {
      purges.length = 0;
      failing = 0;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
