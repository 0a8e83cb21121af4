/**
 * A software WebAuthn authenticator for tests (issue 23, passkeys): an EC P-256 key made with
 * node:crypto, a "none" attestation for registration and ES256 assertions for sign-in, built byte by
 * byte as the WebAuthn spec lays them out (authenticator data, COSE key, CBOR attestation object,
 * client data JSON). What it produces is what a browser would send (the JSON of
 * PublicKeyCredential.toJSON()), so the server's checks run on real responses.
 */
import crypto from "node:crypto";

// A minimal CBOR encoder: unsigned and negative integers, byte and text strings, maps.
type Cbor = number | string | Uint8Array | Map<Cbor, Cbor>;
function head(major: number, n: number): Buffer {
  if (n < 24) return Buffer.from([(major << 5) | n]);
  if (n < 0x100) return Buffer.from([(major << 5) | 24, n]);
  if (n < 0x10000) return Buffer.from([(major << 5) | 25, n >> 8, n & 0xff]);
  const b = Buffer.alloc(5);
  b[0] = (major << 5) | 26;
  b.writeUInt32BE(n, 1);
  return b;
}
function cbor(value: Cbor): Buffer {
  if (typeof value === "number") return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === "string") {
    const bytes = Buffer.from(value, "utf8");
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), Buffer.from(value)]);
  const parts = [head(5, value.size)];
  for (const [k, v] of value) parts.push(cbor(k), cbor(v));
  return Buffer.concat(parts);
}

const sha256 = (data: Buffer | string) => crypto.createHash("sha256").update(data).digest();
const b64url = (data: Buffer | Uint8Array) => Buffer.from(data).toString("base64url");

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;

interface SoftAuthenticatorOptions {
  /** The origin the "browser" is on (clientDataJSON.origin). */
  origin: string;
  /** The RP id the authenticator scopes the credential to (its SHA-256 starts authenticator data). */
  rpId: string;
  /** Counts signatures (a real authenticator may also keep 0 for ever). */
  counter?: number;
}

export class SoftAuthenticator {
  readonly credentialId = crypto.randomBytes(32);
  private readonly keys = crypto.generateKeyPairSync("ec", { namedCurve: "P-256" });
  origin: string;
  rpId: string;
  counter: number;

  constructor(options: SoftAuthenticatorOptions) {
    this.origin = options.origin;
    this.rpId = options.rpId;
    this.counter = options.counter ?? 0;
  }

  get id(): string {
    return b64url(this.credentialId);
  }

  /** The COSE_Key of the public key (EC2, ES256, P-256). */
  private coseKey(): Buffer {
    const jwk = this.keys.publicKey.export({ format: "jwk" });
    return cbor(
      new Map<Cbor, Cbor>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x!, "base64url")],
        [-3, Buffer.from(jwk.y!, "base64url")],
      ]),
    );
  }

  private authData(flags: number, counter: number, attested?: Buffer): Buffer {
    const c = Buffer.alloc(4);
    c.writeUInt32BE(counter >>> 0);
    return Buffer.concat([sha256(this.rpId), Buffer.from([flags]), c, ...(attested ? [attested] : [])]);
  }

  private clientData(type: "webauthn.create" | "webauthn.get", challenge: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin: this.origin, crossOrigin: false }), "utf8");
  }

  /** navigator.credentials.create(): a registration response with attestation "none". */
  register(challenge: string, over: { clientData?: Partial<Record<"type" | "origin", string>> } = {}) {
    const idLen = Buffer.alloc(2);
    idLen.writeUInt16BE(this.credentialId.length);
    const attested = Buffer.concat([Buffer.alloc(16), idLen, this.credentialId, this.coseKey()]);
    const authData = this.authData(FLAG_UP | FLAG_UV | FLAG_AT, this.counter, attested);
    const attestationObject = cbor(
      new Map<Cbor, Cbor>([
        ["fmt", "none"],
        ["attStmt", new Map()],
        ["authData", authData],
      ]),
    );
    const clientDataJSON = over.clientData
      ? Buffer.from(JSON.stringify({ type: "webauthn.create", challenge, origin: this.origin, crossOrigin: false, ...over.clientData }))
      : this.clientData("webauthn.create", challenge);
    return {
      id: this.id,
      rawId: this.id,
      type: "public-key",
      response: { clientDataJSON: b64url(clientDataJSON), attestationObject: b64url(attestationObject), transports: ["internal"] },
      authenticatorAttachment: "platform",
      clientExtensionResults: {},
    };
  }

  /**
   * navigator.credentials.get(): an assertion signed with this key. The counter goes up by one unless
   * `counter` is given; `signWith` signs with another key (a forged signature).
   */
  assert(challenge: string, over: { counter?: number; signWith?: crypto.KeyObject; origin?: string } = {}) {
    if (over.counter === undefined && this.counter > 0) this.counter += 1;
    const counter = over.counter ?? this.counter;
    const authData = this.authData(FLAG_UP | FLAG_UV, counter);
    const clientDataJSON = Buffer.from(JSON.stringify({ type: "webauthn.get", challenge, origin: over.origin ?? this.origin, crossOrigin: false }), "utf8");
    const signature = crypto.sign("sha256", Buffer.concat([authData, sha256(clientDataJSON)]), over.signWith ?? this.keys.privateKey);
    return {
      id: this.id,
      rawId: this.id,
      type: "public-key",
      response: { clientDataJSON: b64url(clientDataJSON), authenticatorData: b64url(authData), signature: b64url(signature) },
      authenticatorAttachment: "platform",
      clientExtensionResults: {},
    };
  }
}

/** Another P-256 private key (to forge a signature). */
export const otherPrivateKey = () => crypto.generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey;
