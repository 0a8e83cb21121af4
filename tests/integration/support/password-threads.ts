import { PasswordWorkers } from "~/platform/password-workers.server";

const slot = globalThis as unknown as { __gatehousePasswordWorkers?: PasswordWorkers };

/** The process's password-hashing threads replaced by `size` of the test's own; `restore()` puts them back. */
export function ownPasswordThreads(size = 1) {
  const before = slot.__gatehousePasswordWorkers;
  const workers = new PasswordWorkers(size);
  slot.__gatehousePasswordWorkers = workers;
  return {
    workers,
    async restore() {
      await workers.close();
      slot.__gatehousePasswordWorkers = before;
    },
  };
}

/**
 * Keeps the threads busy: `count` checks of a hash at bcrypt cost `cost` queued without a bound, each
 * said to take a minute, so a sign-in is told "busy". The function returned waits for them and makes
 * the threads quick again.
 */
export async function busyPasswordThreads(workers: PasswordWorkers, { cost, count }: { cost: number; count: number }) {
  const hash = await workers.hash("x", cost);
  workers.averageMs = 60_000;
  const queued = Array.from({ length: count }, () => workers.compare("x", hash).catch(() => false));
  return async () => {
    await Promise.all(queued);
    workers.averageMs = 100;
  };
}
