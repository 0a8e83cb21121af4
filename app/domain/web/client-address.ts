/**
 * The visitor's address as every per-address limit counts it (issue 19, decision 197): an IPv4
 * address as itself, an IPv6 address by its /64 network. One household or server is given a whole
 * /64 and can pick any of its 2^64 addresses, so counting each one alone would make every request a
 * new visitor. IPv4-mapped IPv6 (`::ffff:192.0.2.1`, what a dual-stack listener reports) is the IPv4
 * address. Anything unparseable is counted as itself, lower-cased (never merged with other values).
 */
import ipaddr from "ipaddr.js";

export function addressLimitKey(ip: string): string {
  const raw = (ip ?? "").trim();
  if (!raw) return "unknown";
  // A zone index (fe80::1%eth0) names the interface, not the address.
  const bare = raw.replace(/%.*$/, "");
  if (!ipaddr.isValid(bare)) return raw.toLowerCase();
  const addr = ipaddr.process(bare);
  if (addr.kind() === "ipv4") return addr.toString();
  const parts = (addr as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((p) => p.toString(16)).join(":")}::/64`;
}
