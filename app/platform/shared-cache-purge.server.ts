/**
 * The shared cache's purge port and its two adapters (issue 41, decision 571), chosen by CACHE_PURGE:
 *
 * - `cloudflare`: Cloudflare's purge by cache tag, `POST /client/v4/zones/{zone}/purge_cache` with
 *   `{"tags": [...]}` and the API token as a bearer; at most 30 tags a call (Cloudflare's limit for
 *   every plan), so a larger purge is sent in several calls.
 * - `nginx`: deploy/nginx.conf's proxy_cache, purged through the purge listener it keeps on
 *   127.0.0.1 (ngx_cache_purge, Debian's libnginx-mod-http-cache-purge). ngx_cache_purge drops one
 *   cache key per request and nginx knows nothing of tags, so the app names the pages: `pathsFor(tags)`
 *   (the site's own table of pages and their tags, app/domain/web/cache-tags.ts), each purged in the
 *   three encodings nginx keys separately (br, gzip, none), with the public host nginx keys on.
 *
 * A purge that fails throws: the caller keeps the tags and tries again.
 */
import http from "node:http";
import type { Env } from "./env.server";

export interface SharedCachePurge {
  readonly name: "nginx" | "cloudflare";
  purge(tags: readonly string[]): Promise<void>;
}

const CLOUDFLARE_API = "https://api.cloudflare.com";
/** Cloudflare takes at most 30 tags in one purge call. */
const CLOUDFLARE_TAGS_PER_CALL = 30;

function cloudflarePurge(options: { zoneId: string; apiToken: string; apiBase?: string; fetch?: typeof fetch }): SharedCachePurge {
  const base = (options.apiBase ?? CLOUDFLARE_API).replace(/\/$/, "");
  const send = options.fetch ?? fetch;
  return {
    name: "cloudflare",
    async purge(tags) {
      for (let i = 0; i < tags.length; i += CLOUDFLARE_TAGS_PER_CALL) {
        const response = await send(`${base}/client/v4/zones/${options.zoneId}/purge_cache`, {
          method: "POST",
          headers: { Authorization: `Bearer ${options.apiToken}`, "Content-Type": "application/json" },
          body: JSON.stringify({ tags: tags.slice(i, i + CLOUDFLARE_TAGS_PER_CALL) }),
          signal: AbortSignal.timeout(10_000),
        });
        const answer = (await response.json().catch(() => null)) as { success?: boolean; errors?: Array<{ code?: number; message?: string }> } | null;
        if (!response.ok || answer?.success !== true) {
          const why = answer?.errors?.map((e) => `${e.code ?? ""} ${e.message ?? ""}`.trim()).join("; ") || `HTTP ${response.status}`;
          throw new Error(`Cloudflare refused the purge: ${why}`);
        }
      }
    },
  };
}

/** The encodings nginx keeps apart in its cache key (deploy/nginx.conf's `$gatehouse_encoding`). */
const NGINX_ENCODINGS = ["br", "gzip", ""] as const;
/** Purge requests in flight at once. */
const NGINX_PARALLEL = 8;

function nginxPurge(options: { purgeUrl: string; host: string; pathsFor: (tags: readonly string[]) => Promise<string[]> }): SharedCachePurge {
  const target = new URL(options.purgeUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: NGINX_PARALLEL });
  const purgeOne = (path: string, encoding: string) =>
    new Promise<void>((resolve, reject) => {
      const request = http.request(
        {
          host: target.hostname,
          port: target.port || 80,
          method: "PURGE",
          path,
          agent,
          timeout: 5_000,
          headers: { Host: options.host, ...(encoding ? { "Accept-Encoding": encoding } : {}) },
        },
        (response) => {
          response.resume();
          // 200: purged; 404: nothing stored under that key.
          if (response.statusCode === 200 || response.statusCode === 404) resolve();
          else reject(new Error(`nginx answered ${response.statusCode} to the purge of ${path}`));
        },
      );
      request.on("timeout", () => request.destroy(new Error(`nginx did not answer the purge of ${path}`)));
      request.on("error", reject);
      request.end();
    });
  return {
    name: "nginx",
    async purge(tags) {
      const jobs = (await options.pathsFor(tags)).flatMap((path) => NGINX_ENCODINGS.map((encoding) => () => purgeOne(path, encoding)));
      const workers = Array.from({ length: Math.min(NGINX_PARALLEL, jobs.length) }, async () => {
        for (let job = jobs.shift(); job; job = jobs.shift()) await job();
      });
      await Promise.all(workers);
    },
  };
}

/** The configured adapter, or null (CACHE_PURGE unset or `off`). */
export function sharedCachePurgeOf(
  e: Pick<Env, "CACHE_PURGE" | "CACHE_PURGE_NGINX_URL" | "CLOUDFLARE_ZONE_ID" | "CLOUDFLARE_API_TOKEN" | "CLOUDFLARE_API_BASE" | "PUBLIC_URL">,
  pathsFor: (tags: readonly string[]) => Promise<string[]>,
): SharedCachePurge | null {
  if (e.CACHE_PURGE === "cloudflare" && e.CLOUDFLARE_ZONE_ID && e.CLOUDFLARE_API_TOKEN) {
    return cloudflarePurge({ zoneId: e.CLOUDFLARE_ZONE_ID, apiToken: e.CLOUDFLARE_API_TOKEN, apiBase: e.CLOUDFLARE_API_BASE });
  }
  if (e.CACHE_PURGE === "nginx" && e.PUBLIC_URL) {
    return nginxPurge({ purgeUrl: e.CACHE_PURGE_NGINX_URL ?? "http://127.0.0.1:8080", host: new URL(e.PUBLIC_URL).hostname, pathsFor });
  }
  return null;
}
