/** A permanent path redirect as stored. */
export interface RedirectRule {
  fromPath: string;
  toPath: string;
  statusCode: number;
  /**
   * Forced: redirects even when the old path still has a page. Not forced: only where no page answers
   * (the path would be a 404); a page at that path wins. Absent: forced (the spec's rules are all forced).
   */
  isForced?: boolean;
}

/**
 * Normalises a request path for matching: decoded, lowercase, one leading slash, no trailing slash
 * (except the root), duplicate slashes collapsed.
 */
export function normalizePath(path: string): string {
  let p = path.split("?")[0]!.split("#")[0]!;
  try {
    p = decodeURIComponent(p);
  } catch {
    // keep the raw path when it is not valid percent-encoding
  }
  p = ("/" + p).replace(/\/{2,}/g, "/").toLowerCase();
  if (p.length > 1) p = p.replace(/\/+$/, "");
  return p || "/";
}

/** Finds the redirect for a path, matched case-insensitively and with or without a trailing slash. */
export function matchRedirect(
  rules: readonly RedirectRule[],
  pathname: string,
): RedirectRule | undefined {
  const wanted = normalizePath(pathname);
  return rules.find((r) => normalizePath(r.fromPath) === wanted);
}

/** The redirect target with the request's query string kept (the target's own query wins on clashes). */
export function redirectTarget(toPath: string, search: string): string {
  if (!search || search === "?") return toPath;
  const [base, targetQuery] = toPath.split("?", 2) as [string, string | undefined];
  const params = new URLSearchParams(search);
  if (targetQuery) for (const [k, v] of new URLSearchParams(targetQuery)) params.set(k, v);
  const qs = params.toString();
  return qs ? `${base}?${qs}` : base;
}

/**
 * Refuses a rule that would make a loop with the existing ones: following redirects from the new
 * rule's target must never come back to its source. Targets on another site end the chain; an
 * absolute URL on the primary host (`primaryHost`, with or without www) counts as its path.
 * Returns an error message or null.
 */
export function findRedirectLoop(
  existing: readonly Pick<RedirectRule, "fromPath" | "toPath">[],
  candidate: Pick<RedirectRule, "fromPath" | "toPath">,
  options: { primaryHost?: string } = {},
): string | null {
  const from = normalizePath(candidate.fromPath);
  const localPath = (target: string) => internalPath(target, options.primaryHost);
  const start = localPath(candidate.toPath);
  if (start === null) return null;
  const rules = existing.filter((r) => normalizePath(r.fromPath) !== from);
  const seen = new Set<string>([from]);
  let current = start;
  const chain = [candidate.fromPath, candidate.toPath];
  while (true) {
    if (seen.has(current)) return `This redirect would make a loop: ${chain.join(" → ")}`;
    seen.add(current);
    const next = rules.find((r) => normalizePath(r.fromPath) === current);
    if (!next) return null;
    const nextPath = localPath(next.toPath);
    if (nextPath === null) return null;
    chain.push(next.toPath);
    current = nextPath;
  }
}

/** The normalised path a redirect target lands on within this site, or null when it leaves the site. */
function internalPath(target: string, primaryHost?: string): string | null {
  if (!isExternal(target)) return normalizePath(target);
  if (!primaryHost) return null;
  try {
    const url = new URL(target);
    return bareHostname(url.host) === bareHostname(primaryHost) ? normalizePath(url.pathname) : null;
  } catch {
    return null;
  }
}

function isExternal(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(target);
}

/**
 * Characters a browser reads differently from what an editor sees (issue 36): a backslash (read as
 * "/", so "/\\evil.example" is "//evil.example", another host), tabs, line breaks and other control or
 * space characters (dropped or cut inside a URL), and their percent-encoded forms, together with an
 * encoded slash ("/%2F"), which some servers and proxies decode into "//".
 */
// eslint-disable-next-line no-control-regex -- refusing control characters is the point
const UNSAFE_TARGET_CHARACTERS = /[\u0000-\u0020\u007F-\u00A0\u1680\u2000-\u200F\u2028\u2029\u202F\u205F\u3000\uFEFF\\]/;
const UNSAFE_TARGET_ENCODINGS = /%(?:5c|2f|00|09|0a|0d|20|7f)/i;

/**
 * Whether a redirect target is one a browser follows where it appears to go: a local path (one "/"
 * then not another, nothing a browser reads as a host) or an absolute http(s) URL, with no backslash,
 * control or space character, and no encoded slash, backslash or control character anywhere.
 */
export function isSafeRedirectTarget(target: string): boolean {
  if (!target || UNSAFE_TARGET_CHARACTERS.test(target) || UNSAFE_TARGET_ENCODINGS.test(target)) return false;
  if (target.startsWith("/")) {
    if (target.startsWith("//")) return false;
    try {
      return new URL(target, "https://gatehouse.invalid").origin === "https://gatehouse.invalid";
    } catch {
      return false;
    }
  }
  // Written out in full: "http:/evil.example" or "https:evil.example" is read as another host by one
  // parser and as a path by another.
  if (!/^https?:\/\/[^/]/i.test(target)) return false;
  try {
    const url = new URL(target);
    if (url.protocol !== "https:" && url.protocol !== "http:") return false;
    // A user name or password in the address ("https://our.site@evil.example") hides the real host.
    return !url.username && !url.password && url.hostname !== "";
  } catch {
    return false;
  }
}

/**
 * The host a redirect target leaves the site for, shown beside it in the console's list and in the
 * draft's diff ("external: evil.example"); null for a path on this site, or an address on the
 * primary host (with or without www).
 */
export function externalRedirectHost(target: string, primaryHost?: string): string | null {
  const t = target.trim();
  if (!isExternal(t)) return null;
  try {
    const url = new URL(t);
    if (primaryHost && bareHostname(url.host) === bareHostname(primaryHost)) return null;
    return url.host.toLowerCase();
  } catch {
    return null;
  }
}

/**
 * Checks a redirect row before it is saved: the source is a path on this site (not the home page),
 * the target a path or an http(s) URL. Returns a plain-words error or null.
 */
export function validateRedirectRule(rule: Pick<RedirectRule, "fromPath" | "toPath">): string | null {
  const from = rule.fromPath.trim();
  const to = rule.toPath.trim();
  if (!from.startsWith("/") || from.startsWith("//")) return "The old path must start with a single /, like /contact-us.";
  if (/[?#\s]/.test(from)) return "The old path cannot contain spaces, ? or #.";
  if (normalizePath(from) === "/") return "The home page cannot be redirected.";
  if (/\\/.test(from)) return "The old path cannot contain a backslash (\\).";
  if (!to) return "Enter where the old path should go.";
  // What an editor sees must be where a browser goes: backslashes, spaces, tabs or line breaks and
  // their encoded forms are refused, never repaired (issue 36).
  if (/\\/.test(rule.toPath) || /%5c/i.test(to)) return "The new path cannot contain a backslash (\\): browsers read it as /, which can lead to another site.";
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  if (/[\s\u0000-\u001F]/.test(to) || /%(?:00|09|0a|0d|20)/i.test(to)) return "The new path cannot contain spaces, tabs or line breaks.";
  if (!isSafeRedirectTarget(to)) return "The new path must be a path like /contact or a full http(s) address.";
  return null;
}

/** The host of a request without port and without a leading "www.", lowercase. */
export function bareHostname(host: string | null | undefined): string {
  if (!host) return "";
  return host.trim().toLowerCase().replace(/:\d+$/, "").replace(/^www\./, "").replace(/\.$/, "");
}

/** Parses the website's `redirects` text: one "from to" pair a line; blank lines and # comments ignored. */
export function parseRedirectsText(text: string): Array<{ fromPath: string; toPath: string }> {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("#"))
    .map((line) => {
      const [fromPath, toPath] = line.split(/\s+/);
      return { fromPath: fromPath ?? "", toPath: toPath ?? "" };
    })
    .filter((r) => r.fromPath.startsWith("/") && r.toPath && isSafeRedirectTarget(r.toPath));
}

/** More redirects than this in a row is refused as a chain that never ends (browsers give up near 20). */
export const MAX_REDIRECT_HOPS = 10;

/**
 * The console's check of a redirect against the whole set it will join (issue 24: the live rules with
 * the draft over them, decision 309): a loop back to its own source, a path into a loop of other
 * rules (a chain that never ends), or a chain longer than MAX_REDIRECT_HOPS. The message shows the
 * path followed. Returns null when the chain ends.
 */
export function redirectChainProblem(
  others: readonly Pick<RedirectRule, "fromPath" | "toPath">[],
  candidate: Pick<RedirectRule, "fromPath" | "toPath">,
  options: { primaryHost?: string } = {},
): string | null {
  const from = normalizePath(candidate.fromPath);
  let current = internalPath(candidate.toPath, options.primaryHost);
  const chain = [from, candidate.toPath.trim()];
  const rules = others.filter((r) => normalizePath(r.fromPath) !== from);
  const seen = new Set<string>([from]);
  while (current !== null) {
    if (current === from) return `This redirect would make a loop: ${chain.join(" → ")}`;
    if (seen.has(current)) return `This redirect would lead into a chain that never ends: ${chain.join(" → ")} → …`;
    seen.add(current);
    const at = current;
    const next = rules.find((r) => normalizePath(r.fromPath) === at);
    if (!next) return null;
    chain.push(next.toPath.trim());
    if (chain.length - 1 > MAX_REDIRECT_HOPS) return `This redirect would start a chain of more than ${MAX_REDIRECT_HOPS} redirects: ${chain.join(" → ")}`;
    current = internalPath(next.toPath, options.primaryHost);
  }
  return null;
}
