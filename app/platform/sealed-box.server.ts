/**
 * Small authenticated encryption for values kept at rest for a short while (the secrets of unsent
 * mail, decision 198): AES-256-GCM with a key derived by HKDF-SHA256 from a configured secret and a
 * purpose, so one secret gives unrelated keys for unrelated uses. Sealed text: "v1.<iv>.<tag>.<ct>"
 * (base64url). `openSealed` tries every given secret (the first seals; rotation as for cookies).
 */
import crypto from "node:crypto";

const deriveKey = (secret: string, purpose: string) => Buffer.from(crypto.hkdfSync("sha256", secret, "gatehouse", purpose, 32));

export class SealedBoxError extends Error {
  override name = "SealedBoxError";
}

export function seal(plaintext: string, secrets: readonly string[], purpose: string): string {
  const secret = secrets[0];
  if (!secret) throw new SealedBoxError("No secret to seal with");
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv("aes-256-gcm", deriveKey(secret, purpose), iv);
  cipher.setAAD(Buffer.from(purpose, "utf8"));
  const ct = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return ["v1", iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), ct.toString("base64url")].join(".");
}

export function openSealed(sealed: string, secrets: readonly string[], purpose: string): string {
  const [version, iv, tag, ct] = sealed.split(".");
  if (version !== "v1" || !iv || !tag || ct === undefined) throw new SealedBoxError("Not a sealed value");
  for (const secret of secrets) {
    try {
      const decipher = crypto.createDecipheriv("aes-256-gcm", deriveKey(secret, purpose), Buffer.from(iv, "base64url"));
      decipher.setAAD(Buffer.from(purpose, "utf8"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([decipher.update(Buffer.from(ct, "base64url")), decipher.final()]).toString("utf8");
    } catch {
      // the next secret (an older one, kept for rotation)
    }
  }
  throw new SealedBoxError("The sealed value does not open with any configured secret");
}
