import { vi } from "vitest";
import { PRODUCTION_BCRYPT_ROUNDS } from "~/platform/password.server";

/**
 * The integration suite hashes passwords at bcrypt cost 4 (vitest.config.ts sets BCRYPT_ROUNDS=4,
 * test-only: app/platform/password.server.ts, decision 523): a password hashed or checked at the
 * production cost takes about 70 ms of CPU, and the suite hashes thousands. A file whose checks are
 * about the hashing itself calls this first, and every password it hashes is at the production cost
 * again: the stored hash's cost, a hash that must not leak, the hashing threads in a rush. The next
 * file in the worker starts with cost 4 again (tests/setup/fresh-process-state.ts puts the
 * environment back).
 */
export function productionBcryptCost(): void {
  vi.stubEnv("BCRYPT_ROUNDS", String(PRODUCTION_BCRYPT_ROUNDS));
}
