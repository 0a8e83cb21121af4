/**
 * SiteLink secrets at rest (issue 11 §3): the corp password and API key of a location come from an
 * environment variable named in its settings, or are stored AES-256-GCM encrypted under the key in
 * SITELINK_SECRET_KEY (32 bytes, as 64 hex characters or base64). The ciphertext is bound to its
 * location, field and endpoint (additional authenticated data, format v2): a blob copied to another
 * row, or left behind when someone points the row at another endpoint, does not decrypt. Blobs of the
 * first format (v1, bound to location and field only) are read only for an endpoint on SiteLink's own
 * host or loopback, and re-sealed as v2 at once (settings.ts; decision 186). Error messages name the
 * variable or the field, never a value.
 */
import crypto from "node:crypto";
import { rawEnv, type EnvSource } from "~/platform/env.server";

const SECRET_KEY_ENV = "SITELINK_SECRET_KEY";

/** The location's SiteLink settings cannot give a usable secret (a configuration problem). */
export class SiteLinkSecretError extends Error {
  override name = "SiteLinkSecretError";
}

/** SITELINK_SECRET_KEY as 32 bytes; throws SiteLinkSecretError when missing or malformed. */
export function secretKey(env: EnvSource = rawEnv()): Buffer {
  const raw = (env[SECRET_KEY_ENV] ?? "").trim();
  if (!raw) throw new SiteLinkSecretError(`${SECRET_KEY_ENV} is not set: it is needed to decrypt SiteLink passwords stored in the database`);
  const key = /^[0-9a-f]{64}$/i.test(raw) ? Buffer.from(raw, "hex") : Buffer.from(raw, "base64");
  if (key.length !== 32) throw new SiteLinkSecretError(`${SECRET_KEY_ENV} must be 32 bytes, as 64 hex characters or base64 (e.g. \`openssl rand -hex 32\`)`);
  return key;
}

/** Where a secret belongs: its location, its field and the endpoint it may be sent to. */
interface SecretContext {
  locationId: number;
  field: string;
  endpoint: string;
}

const aadV1 = (c: SecretContext) => Buffer.from(`sitelink:${c.locationId}:${c.field}`, "utf8");
const aadV2 = (c: SecretContext) => Buffer.from(`sitelink:v2:${c.locationId}:${c.field}:${c.endpoint}`, "utf8");
const b64 = (b: Buffer) => b.toString("base64url");

/**
 * Hosts a v1 blob (not bound to an endpoint) may still be sent to: SiteLink's own service and loopback
 * (the simulator). A v1 blob on a row pointing anywhere else is refused: the password is typed again.
 */
function v1EndpointTrusted(endpoint: string): boolean {
  let host: string;
  try {
    host = new URL(endpoint).hostname.toLowerCase();
  } catch {
    return false;
  }
  return host === "smdservers.net" || host.endsWith(".smdservers.net") || isLoopbackHost(host);
}

/** localhost, 127.0.0.0/8 or ::1 (a URL's hostname, IPv6 in brackets or not). */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[|\]$/g, "");
  return h === "localhost" || h === "::1" || /^127(?:\.\d{1,3}){3}$/.test(h);
}

/** "v2.<iv>.<tag>.<ciphertext>" (base64url), bound to location, field and endpoint. */
export function encryptSecret(plain: string, key: Buffer, context: SecretContext): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(aadV2(context));
  const ciphertext = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return `v2.${b64(iv)}.${b64(cipher.getAuthTag())}.${b64(ciphertext)}`;
}

/** A v1 blob, for tests and the migration path only (settings.ts re-seals it as v2). */
export function encryptSecretV1ForTests(plain: string, key: Buffer, context: Omit<SecretContext, "endpoint">): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(aadV1({ ...context, endpoint: "" }));
  const ciphertext = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return `v1.${b64(iv)}.${b64(cipher.getAuthTag())}.${b64(ciphertext)}`;
}

/** True when the blob is of the first format (to be re-sealed). */
export const isV1Blob = (blob: string) => blob.startsWith("v1.");

export function decryptSecret(blob: string, key: Buffer, context: SecretContext): string {
  const parts = blob.split(".");
  const version = parts[0];
  if (parts.length !== 4 || (version !== "v1" && version !== "v2")) {
    throw new SiteLinkSecretError(`The stored SiteLink ${context.field} of location ${context.locationId} is not in a known format`);
  }
  if (version === "v1" && !v1EndpointTrusted(context.endpoint)) {
    throw new SiteLinkSecretError(
      `The stored SiteLink ${context.field} of location ${context.locationId} is of the old format, not bound to its endpoint, and the endpoint is not SiteLink's own host: enter it again with npm run sitelink:configure`,
    );
  }
  try {
    const [, iv, tag, ciphertext] = parts as [string, string, string, string];
    const decipher = crypto.createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
    decipher.setAAD(version === "v1" ? aadV1(context) : aadV2(context));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString("utf8");
  } catch {
    throw new SiteLinkSecretError(
      `The stored SiteLink ${context.field} of location ${context.locationId} does not decrypt with ${SECRET_KEY_ENV} for this endpoint (wrong key, the value was altered, or the endpoint changed since it was stored: enter it again with npm run sitelink:configure)`,
    );
  }
}

/**
 * The secret of one field: from the environment variable `envName` when given, else decrypted from
 * `encrypted`; null when neither is set (allowed for the optional API key).
 */
export function resolveSecret(
  source: { envName: string | null; encrypted: string | null },
  context: SecretContext,
  env: EnvSource = rawEnv(),
): string | null {
  if (source.envName) {
    const problem = secretEnvProblem(context.field, source.envName);
    if (problem) throw new SiteLinkSecretError(`The SiteLink ${context.field} of location ${context.locationId}: ${problem}`);
    const value = env[source.envName];
    if (value === undefined || value === "") {
      throw new SiteLinkSecretError(`The SiteLink ${context.field} of location ${context.locationId} comes from ${source.envName}, which is not set`);
    }
    return value;
  }
  if (source.encrypted) return decryptSecret(source.encrypted, secretKey(env), context);
  return null;
}

/**
 * The names an environment variable holding a SiteLink secret may have (issue 19): `SITELINK_PASSWORD`
 * or `SITELINK_<WORDS>_PASSWORD` for the password, `SITELINK_API_KEY` or `SITELINK_<WORDS>_API_KEY` for
 * the API key (capitals, digits, underscores). So no setting can hand the app's own secrets
 * (SESSION_SECRET, SITELINK_SECRET_KEY, DATABASE_URL, SMTP_URL ...) to a SiteLink endpoint.
 */
const SECRET_ENV_PATTERNS: Record<string, RegExp> = {
  password: /^SITELINK_(?:[A-Z0-9]+_)*PASSWORD$/,
  apiKey: /^SITELINK_(?:[A-Z0-9]+_)*API_KEY$/,
};

/** Why `name` may not hold the SiteLink `field` ("password" or "apiKey"), or null when it may. */
export function secretEnvProblem(field: string, name: string): string | null {
  const pattern = SECRET_ENV_PATTERNS[field];
  if (!pattern) return `no environment variable may hold the SiteLink ${field}`;
  if (pattern.test(name)) return null;
  const example = field === "password" ? "SITELINK_PASSWORD or SITELINK_<SITE>_PASSWORD" : "SITELINK_API_KEY or SITELINK_<SITE>_API_KEY";
  return `the environment variable ${JSON.stringify(name.slice(0, 64))} may not hold it: its name must be ${example} (capitals, digits, underscores)`;
}
