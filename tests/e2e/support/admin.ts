import { execFileSync } from "node:child_process";
import { generate } from "otplib";
import { ownServers } from "./servers";

/**
 * The back office's browser specs (issue 23): invite a first owner the way an operator does, by
 * `npm run staff:invite` while this worker's e2e server runs (the command asks the server through its local
 * endpoint: the embedded database admits one process), and compute TOTP codes from the enrolment
 * page's text key.
 */
export function inviteByCommand(email: string): string {
  const out = execFileSync("npx", ["tsx", "scripts/staff-invite.ts", "--email", email, "--role", "owner"], {
    env: { ...process.env, PGLITE_DIR: ownServers().pgliteDir, NODE_ENV: "test" },
    encoding: "utf8",
    timeout: 60_000,
  });
  const link = /https?:\/\/\S+\/admin\/invite\/[A-Za-z0-9_-]+/.exec(out)?.[0];
  if (!link) throw new Error(`no link in: ${out}`);
  return new URL(link).pathname;
}

/** A code for the next time step (the server accepts one step either side): never the one just used. */
export const nextCode = (secret: string) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 });
