import bcrypt from "bcryptjs";
import { env, type Env } from "~/platform/env.server";
import { defaultPasswordThreads, PasswordWorkers } from "./password-workers.server";

/** The bcrypt cost of every web password hashed in production. */
export const PRODUCTION_BCRYPT_ROUNDS = 10;

/**
 * The bcrypt cost: always PRODUCTION_BCRYPT_ROUNDS, except under NODE_ENV=test where BCRYPT_ROUNDS
 * (4–10) may lower it so the fuzz test can send ~1,000 rental submissions in seconds (docs/fuzzing.md).
 * Test-only: outside NODE_ENV=test the variable is ignored, so production never hashes below 10.
 */
export function bcryptRounds(e: Pick<Env, "NODE_ENV" | "BCRYPT_ROUNDS"> = env()): number {
  const n = e.BCRYPT_ROUNDS;
  if (e.NODE_ENV !== "test" || n === undefined) return PRODUCTION_BCRYPT_ROUNDS;
  return n >= 4 && n <= PRODUCTION_BCRYPT_ROUNDS ? n : PRODUCTION_BCRYPT_ROUNDS;
}

/**
 * The threads that hash and compare (decision 207): PASSWORD_HASH_THREADS (1–16), else one fewer than
 * the cores, at least 1 and at most 4.
 */
export function passwordThreads(e: Pick<Env, "PASSWORD_HASH_THREADS"> = env()): number {
  return e.PASSWORD_HASH_THREADS ?? defaultPasswordThreads();
}

const globalForPasswords = globalThis as unknown as { __gatehousePasswordWorkers?: PasswordWorkers };

/** The process's password threads (one set, also across dev-server reloads). */
function workers(): PasswordWorkers {
  globalForPasswords.__gatehousePasswordWorkers ??= new PasswordWorkers(passwordThreads());
  return globalForPasswords.__gatehousePasswordWorkers;
}

/**
 * The server's admission (server.js, decision 205), when there is one: a request waiting for a hashing
 * thread gives its place to the next request meanwhile. Absent in scripts and tests.
 */
const admission = () => (globalThis as unknown as { __gatehouseAdmission?: { away(): () => void } }).__gatehouseAdmission;

async function offTheLoop<T>(work: () => Promise<T>): Promise<T> {
  const back = admission()?.away();
  try {
    return await work();
  } finally {
    back?.();
  }
}

/** A bcrypt hash of `password`, computed off the event loop (issue 22). */
export function hashPassword(password: string): Promise<string> {
  return offTheLoop(() => workers().hash(password, bcryptRounds()));
}

/**
 * The longest a password check (a sign-in) waits for a hashing thread (decisions 331, 427): past it
 * the visitor is told at once to try again in a moment (PasswordBusyError), so that in a rush every
 * sign-in is answered within 5 s (issue 22) — well before a proxy in front gives up.
 */
export const PASSWORD_CHECK_MAX_WAIT_MS = 3_000;

/**
 * Whether a password check asked for now would wait longer than `maxWaitMs` for a thread (by the
 * queue ahead of it and the measured time per hash): a sign-in asks first, and is told "busy" before
 * it counts against a limit or reads the database (decision 427).
 */
export function passwordChecksBusy(maxWaitMs = PASSWORD_CHECK_MAX_WAIT_MS): boolean {
  return workers().expectedWaitMs() > maxWaitMs;
}

/**
 * Whether `password` matches the bcrypt `hash`, computed off the event loop (issue 22). With
 * `maxWaitMs` (the sign-ins: PASSWORD_CHECK_MAX_WAIT_MS), throws PasswordBusyError when the threads'
 * queue would keep it waiting longer.
 */
export function verifyPassword(password: string, hash: string, options: { maxWaitMs?: number } = {}): Promise<boolean> {
  return offTheLoop(() => workers().compare(password, hash, options));
}

export { PasswordBusyError } from "./password-workers.server";

// A bcrypt hash of a random string at the production cost.
const PRODUCTION_DUMMY_HASH = "$2b$10$6RlA9QtiOg4O3XAkSVzT/uNiPr3vCrRUzTZK6TML/BjlHS1afBEEi";
const dummyHashes = new Map<number, string>([[PRODUCTION_BCRYPT_ROUNDS, PRODUCTION_DUMMY_HASH]]);

/**
 * A hash to compare against when the e-mail is unknown, so a wrong e-mail takes as long as a wrong
 * password and the answer cannot tell them apart. At the cost passwords are hashed with now.
 */
export function dummyPasswordHash(): string {
  const rounds = bcryptRounds();
  let hash = dummyHashes.get(rounds);
  if (!hash) {
    hash = bcrypt.hashSync(`dummy-${rounds}`, rounds);
    dummyHashes.set(rounds, hash);
  }
  return hash;
}
