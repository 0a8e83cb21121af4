/**
 * React Router's signed cookie, read with node:crypto (issue 22, decision 333).
 *
 * `createCookie` verifies a signature with WebCrypto: an `importKey` and a `verify`, each a round trip
 * through Node's crypto job queue, on every read of every signed cookie — in a rush of 1,000 posts a
 * few percent of the server's CPU. This cookie is React Router's own for writing (`serialize`: the
 * same format, attributes and WebCrypto signature as before) and reads the same format with a
 * synchronous HMAC-SHA256 from node:crypto, compared in constant time:
 *
 *   name=<base64(JSON)>.<base64(HMAC-SHA256(base64(JSON), secret)) without "=" padding>   (URL-encoded)
 *
 * Every secret is tried in order, as React Router does (rotation). A value whose signature does not
 * verify reads as null, a present but empty value as "", an absent one as null — as before.
 * tests/unit/signed-cookie.test.ts checks both directions against React Router's cookie.
 */
import crypto from "node:crypto";
import { createCookie, type Cookie, type CookieOptions } from "react-router";

export function signedCookie(name: string, options: CookieOptions & { secrets: readonly string[] }): Cookie {
  const inner = createCookie(name, { ...options, secrets: [...options.secrets] });
  const secrets = [...options.secrets];
  if (secrets.length === 0) return inner;
  return {
    get name() {
      return inner.name;
    },
    get isSigned() {
      return inner.isSigned;
    },
    get expires() {
      return inner.expires;
    },
    serialize: (value, serializeOptions) => inner.serialize(value, serializeOptions),
    async parse(cookieHeader) {
      if (!cookieHeader) return null;
      const raw = cookieValue(cookieHeader, name);
      if (raw === undefined) return null;
      if (raw === "") return "";
      return unsign(raw, secrets);
    },
  };
}

function unsign(signed: string, secrets: string[]): unknown {
  const dot = signed.lastIndexOf(".");
  if (dot < 0) return null;
  const value = signed.slice(0, dot);
  const given = Buffer.from(signed.slice(dot + 1));
  for (const secret of secrets) {
    const expected = Buffer.from(crypto.createHmac("sha256", secret).update(value, "utf8").digest("base64").replace(/=+$/, ""));
    if (expected.length === given.length && crypto.timingSafeEqual(expected, given)) return decodeData(value);
  }
  return null;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** React Router's decodeData: base64 of the UTF-8 of the JSON; a value that does not decode reads as {}. */
function decodeData(value: string): unknown {
  try {
    return JSON.parse(utf8.decode(Buffer.from(value, "base64")));
  } catch {
    return {};
  }
}

/**
 * The value of the first cookie called `name` in a Cookie header, URL-decoded; undefined when there is
 * none. The same reading as the `cookie` package's parseCookie (1.1), which React Router uses: pairs
 * split at ";", names and values trimmed of spaces and tabs (quotes kept), "%" decoded (left as it is
 * when it does not decode), the first of a name wins.
 */
export function cookieValue(header: string, name: string): string | undefined {
  const len = header.length;
  if (len < 2) return undefined;
  let index = 0;
  do {
    const eq = header.indexOf("=", index);
    if (eq === -1) break;
    const semi = header.indexOf(";", index);
    const end = semi === -1 ? len : semi;
    if (eq > end) {
      index = header.lastIndexOf(";", eq - 1) + 1;
      continue;
    }
    if (trimmed(header, index, eq) === name) {
      const value = trimmed(header, eq + 1, end);
      if (!value.includes("%")) return value;
      try {
        return decodeURIComponent(value);
      } catch {
        return value;
      }
    }
    index = end + 1;
  } while (index < len);
  return undefined;
}

function trimmed(s: string, min: number, max: number): string {
  let start = min;
  let end = max;
  while (start < end && (s.charCodeAt(start) === 0x20 || s.charCodeAt(start) === 0x09)) start++;
  while (end > start && (s.charCodeAt(end - 1) === 0x20 || s.charCodeAt(end - 1) === 0x09)) end--;
  return s.slice(start, end);
}
