/**
 * SiteLink secrets at rest (issue 11 §3): the corp password and API key of a location come from an
 * environment variable named in its settings, or are stored AES-256-GCM encrypted under the key in
 * SITELINK_SECRET_KEY (32 bytes, as 64 hex characters or base64). The ciphertext is bound to its
 * location and field (additional authenticated data), so a blob copied to another row does not
 * decrypt. Error messages name the variable or the field, never a value.
 */
import crypto from "node:crypto";

export const SECRET_KEY_ENV = "SITELINK_SECRET_KEY";

/** The location's SiteLink settings cannot give a usable secret (a configuration problem). */
export class SiteLinkSecretError extends Error {
  override name = "SiteLinkSecretError";
}

/** SITELINK_SECRET_KEY as 32 bytes; throws SiteLinkSecretError when missing or malformed. */
export function secretKey(env: NodeJS.ProcessEnv = process.env): Buffer {
  const raw = (env[SECRET_KEY_ENV] ?? "").trim();
  if (!raw) throw new SiteLinkSecretError(`${SECRET_KEY_ENV} is not set: it is needed to decrypt SiteLink passwords stored in the database`);
  const key = /^[0-9a-f]{64}$/i.test(raw) ? Buffer.from(raw, "hex") : Buffer.from(raw, "base64");
  if (key.length !== 32) throw new SiteLinkSecretError(`${SECRET_KEY_ENV} must be 32 bytes, as 64 hex characters or base64 (e.g. \`openssl rand -hex 32\`)`);
  return key;
}

const aad = (locationId: number, field: string) => Buffer.from(`sitelink:${locationId}:${field}`, "utf8");
const b64 = (b: Buffer) => b.toString("base64url");

/** "v1.<iv>.<tag>.<ciphertext>" (base64url). */
export function encryptSecret(plain: string, key: Buffer, context: { locationId: number; field: string }): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(aad(context.locationId, context.field));
  const ciphertext = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return `v1.${b64(iv)}.${b64(cipher.getAuthTag())}.${b64(ciphertext)}`;
}

export function decryptSecret(blob: string, key: Buffer, context: { locationId: number; field: string }): string {
  const parts = blob.split(".");
  if (parts.length !== 4 || parts[0] !== "v1") throw new SiteLinkSecretError(`The stored SiteLink ${context.field} of location ${context.locationId} is not in the v1 format`);
  try {
    const [, iv, tag, ciphertext] = parts as [string, string, string, string];
    const decipher = crypto.createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
    decipher.setAAD(aad(context.locationId, context.field));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString("utf8");
  } catch {
    throw new SiteLinkSecretError(
      `The stored SiteLink ${context.field} of location ${context.locationId} does not decrypt with ${SECRET_KEY_ENV} (wrong key, or the value was altered)`,
    );
  }
}

/**
 * The secret of one field: from the environment variable `envName` when given, else decrypted from
 * `encrypted`; null when neither is set (allowed for the optional API key).
 */
export function resolveSecret(
  source: { envName: string | null; encrypted: string | null },
  context: { locationId: number; field: string },
  env: NodeJS.ProcessEnv = process.env,
): string | null {
  if (source.envName) {
    const value = env[source.envName];
    if (value === undefined || value === "") {
      throw new SiteLinkSecretError(`The SiteLink ${context.field} of location ${context.locationId} comes from ${source.envName}, which is not set`);
    }
    return value;
  }
  if (source.encrypted) return decryptSecret(source.encrypted, secretKey(env), context);
  return null;
}
