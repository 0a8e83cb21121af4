import { z } from "zod";
import crypto from "node:crypto";

const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  DATABASE_URL: z.string().optional(),
  PGLITE_DIR: z.string().optional(),
  /** Comma-separated; the first signs, all verify (rotation). Required in production. */
  SESSION_SECRET: z.string().optional(),
  /** smtp://user:pass@host:port — when unset, emails are stored in the outbox table and logged. */
  SMTP_URL: z.string().optional(),
  MAIL_FROM: z.string().default("Gatehouse Self Storage <no-reply@gatehousestorage.example>"),
  /** "false" when served over plain HTTP in production (turns off Secure cookies and HSTS). */
  HTTPS: z.string().optional(),
  /** The website's public origin for every absolute link (emails, canonical, sitemap). Unset: https:// + website.domain. */
  PUBLIC_URL: z
    .url({ protocol: /^https?$/, error: "PUBLIC_URL must be an http(s) URL, like https://www.example.com" })
    .optional()
    .or(z.literal("").transform(() => undefined)),
  /** Extra host names (comma- or space-separated) the server answers besides the website's domains. */
  ALLOWED_HOSTS: z.string().optional(),
});

export type Env = z.infer<typeof envSchema> & { sessionSecrets: string[]; secureCookies: boolean; allowedHosts: string[] };

let cached: Env | undefined;

/** The environment, parsed once. */
export function env(): Env {
  if (cached) return cached;
  const parsed = envSchema.parse(process.env);
  let secrets = (parsed.SESSION_SECRET ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  if (secrets.length === 0) {
    if (parsed.NODE_ENV === "production" && process.env.ALLOW_EPHEMERAL_SECRET !== "true") {
      console.warn("SESSION_SECRET is not set: using a random secret; sessions end when the server restarts.");
    }
    secrets = [crypto.randomBytes(32).toString("hex")];
  }
  cached = {
    ...parsed,
    sessionSecrets: secrets,
    secureCookies: parsed.NODE_ENV === "production" && parsed.HTTPS !== "false",
    allowedHosts: (parsed.ALLOWED_HOSTS ?? "").split(/[\s,]+/).filter(Boolean),
  };
  return cached;
}
