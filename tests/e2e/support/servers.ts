/**
 * The servers the browser tests run against, one set per Playwright worker (docs/decisions/285):
 * the built server on a fresh seeded PGlite database, and the SiteLink location's server with its
 * simulator (scripts/e2e-sitelink-server.ts). Worker 0 uses E2E_PORT, E2E_SITELINK_PORT and
 * E2E_SITELINK_SIM_PORT (3210, 3420, 3422 unless set) and E2E_PGLITE_DIR (data/e2e); worker n
 * those ports plus n × E2E_PORT_STRIDE (3) and the directories with "-w<n>" appended. Each worker
 * has databases of its own, so the specs' test hooks (the pinned clock, account settings, rate
 * limits) and the rows they write never meet another worker's.
 *
 * playwright.config.ts starts one set per worker; a spec (or a support module) reads its own set
 * with `ownServers()`, which uses the worker's parallel index (TEST_PARALLEL_INDEX, the same for a
 * worker restarted after a failure).
 */
interface ServerSet {
  port: number;
  baseURL: string;
  /** The console's origin on the same server (decision 450): http://admin.localhost:PORT (Chromium resolves *.localhost itself). */
  consoleURL: string;
  sitelinkPort: number;
  sitelinkBaseURL: string;
  simPort: number;
  simURL: string;
  pgliteDir: string;
  sitelinkPgliteDir: string;
}

const env = process.env;
const STRIDE = Number(env.E2E_PORT_STRIDE ?? 3);

export function serverSet(index: number): ServerSet {
  const offset = index * STRIDE;
  const port = Number(env.E2E_PORT ?? 3210) + offset;
  const sitelinkPort = Number(env.E2E_SITELINK_PORT ?? 3420) + offset;
  const simPort = Number(env.E2E_SITELINK_SIM_PORT ?? 3422) + offset;
  const dir = `${env.E2E_PGLITE_DIR ?? "data/e2e"}${index === 0 ? "" : `-w${index}`}`;
  const sitelinkDir = index === 0 && env.E2E_SITELINK_PGLITE_DIR ? env.E2E_SITELINK_PGLITE_DIR : `${dir}-sitelink`;
  return {
    port,
    baseURL: `http://localhost:${port}`,
    consoleURL: `http://admin.localhost:${port}`,
    sitelinkPort,
    sitelinkBaseURL: `http://localhost:${sitelinkPort}`,
    simPort,
    simURL: `http://127.0.0.1:${simPort}`,
    pgliteDir: dir,
    sitelinkPgliteDir: sitelinkDir,
  };
}

/** The server set of the worker this runs in (worker 0's outside a worker, e.g. in the runner). */
export function ownServers(): ServerSet {
  return serverSet(Number(env.TEST_PARALLEL_INDEX ?? 0));
}

/**
 * A port for a server a spec starts itself (the Stripe specs: their own server on the Stripe fake),
 * clear of every worker's set and of every other worker's spec servers: E2E_PORT + 100 + 20 × the
 * worker's index + `slot` (0–19, one per spec file). Offsets from the set's own port would collide
 * across workers, whose sets are only E2E_PORT_STRIDE (3) apart.
 */
export function specServerPort(slot: number): number {
  if (!Number.isInteger(slot) || slot < 0 || slot > 19) throw new Error(`spec server slot ${slot}: 0 to 19`);
  return Number(env.E2E_PORT ?? 3210) + 100 + 20 * Number(env.TEST_PARALLEL_INDEX ?? 0) + slot;
}
