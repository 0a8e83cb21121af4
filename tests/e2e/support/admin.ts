import fs from "node:fs";
import { execFileSync } from "node:child_process";
import type { Page } from "@playwright/test";
import { expect } from "@playwright/test";
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
  // The invitation follows the console's origin (decision 450), never the public site's.
  if (new URL(link).origin !== ownServers().consoleURL) throw new Error(`the invitation is not on the console's origin ${ownServers().consoleURL}: ${link}`);
  return link;
}

/** A console address of this worker's server (decision 450): `consoleUrl("/admin/staff")`. */
export const consoleUrl = (path: string) => `${ownServers().consoleURL}${path}`;

/** A code for the next time step (the server accepts one step either side): never the one just used. */
export const nextCode = (secret: string) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 });

/**
 * A new owner, invited by command, who accepts the invitation (name, password, TOTP) in `page` and is
 * then signed in to the console in that page's browser context. Returns the e-mail and TOTP secret.
 */
export async function signInNewOwner(page: Page, email: string, password: string): Promise<{ email: string; secret: string }> {
  await page.goto(inviteByCommand(email));
  await expect(page.getByRole("heading", { name: "Set up your staff account" })).toBeVisible();
  const secret = (await page.getByTestId("totp-secret").innerText()).trim();
  await page.getByLabel("Your name").fill("Olive Owner");
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByLabel("Password again").fill(password);
  await page.getByLabel("Code from your app").fill(await generate({ secret }));
  await page.getByRole("button", { name: "Save and show my recovery codes" }).click();
  await expect(page.getByRole("heading", { name: "Your recovery codes" })).toBeVisible();
  return { email, secret };
}

/**
 * Invites a member with any role and locations through the running server's command endpoint, as
 * `npm run staff:invite` does (decision 249) but without starting the command's own process: the
 * server's command file (port and secret, beside its database) and POST /__staff/invite from this
 * machine. Returns the one-time link (on the console's origin).
 */
export async function inviteMember(email: string, role: "owner" | "manager" | "front_desk" | "read_only", locationIds: number[] = []): Promise<string> {
  const file = `${ownServers().pgliteDir.replace(/[/\\]+$/, "")}.staff-command.json`;
  const { port, secret } = JSON.parse(fs.readFileSync(file, "utf8")) as { port: number; secret: string };
  const response = await fetch(`http://127.0.0.1:${port}/__staff/invite`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    body: JSON.stringify({ email, role, locationIds }),
  });
  const body = (await response.json()) as { ok: boolean; link?: string; errors?: unknown };
  if (!body.ok || !body.link) throw new Error(`the invitation of ${email} failed: ${JSON.stringify(body)}`);
  return body.link;
}

/**
 * Accepts an invitation in `page` (name, password, TOTP): the member is then signed in there. Returns
 * the TOTP secret. `check` runs on the invitation's page and on the recovery codes' page.
 */
export async function acceptInvitation(page: Page, link: string, name: string, password: string, check?: (step: "invitation" | "recovery-codes") => Promise<void>): Promise<string> {
  await page.goto(link);
  await expect(page.getByRole("heading", { name: "Set up your staff account" })).toBeVisible();
  await check?.("invitation");
  const secret = (await page.getByTestId("totp-secret").innerText()).trim();
  await page.getByLabel("Your name").fill(name);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByLabel("Password again").fill(password);
  await page.getByLabel("Code from your app").fill(await generate({ secret }));
  await page.getByRole("button", { name: "Save and show my recovery codes" }).click();
  await expect(page.getByRole("heading", { name: "Your recovery codes" })).toBeVisible();
  await check?.("recovery-codes");
  return secret;
}
