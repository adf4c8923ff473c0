import ipaddr from "ipaddr.js";

/**
 * Is an IP public unicast? An allow-list: IPv4 ipaddr.js "unicast", IPv6 inside 2000::/3, and outside every range
 * below, listed explicitly since ipaddr.js's names are coarse.
 */

type Cidr = readonly [string, string]; // [cidr, range name]

// IANA IPv4 Special-Purpose Registry, plus multicast/reserved.
const IPV4_FORBIDDEN: readonly Cidr[] = [
  ["0.0.0.0/32", "unspecified"],
  ["0.0.0.0/8", "thisNetwork"],
  ["10.0.0.0/8", "private"],
  ["100.64.0.0/10", "carrierGradeNat"],
  ["127.0.0.0/8", "loopback"],
  ["169.254.169.254/32", "linkLocal(cloudMetadata)"],
  ["169.254.0.0/16", "linkLocal"],
  // Azure's host endpoint: public-looking, never a seller.
  ["168.63.129.16/32", "cloudHostEndpoint"],
  ["172.16.0.0/12", "private"],
  ["192.0.0.0/24", "ietfProtocolAssignments"],
  ["192.0.2.0/24", "documentation"],
  ["192.31.196.0/24", "as112"],
  ["192.52.193.0/24", "amt"],
  ["192.88.99.0/24", "6to4Relay"],
  ["192.168.0.0/16", "private"],
  ["192.175.48.0/24", "as112"],
  ["198.18.0.0/15", "benchmarking"],
  ["198.51.100.0/24", "documentation"],
  ["203.0.113.0/24", "documentation"],
  ["224.0.0.0/4", "multicast"],
  ["255.255.255.255/32", "broadcast"],
  ["240.0.0.0/4", "reserved"],
];

// IANA IPv6 Special-Purpose Registry; outside 2000::/3 is refused anyway.
const IPV6_FORBIDDEN: readonly Cidr[] = [
  ["::/128", "unspecified"],
  ["::1/128", "loopback"],
  ["::ffff:0:0/96", "ipv4Mapped"],
  ["::ffff:0:0:0/96", "ipv4Translated"],
  ["::/96", "ipv4Compatible"],
  ["64:ff9b::/96", "nat64"],
  ["64:ff9b:1::/48", "nat64Local"],
  ["100::/64", "discard"],
  ["2001:db8::/32", "documentation"],
  ["2001::/32", "teredo"],
  ["2001::/23", "ietfProtocolAssignments"],
  ["2002::/16", "6to4"],
  ["3fff::/20", "documentation"],
  ["5f00::/16", "srv6"],
  ["fc00::/7", "uniqueLocal"],
  ["fe80::/10", "linkLocal"],
  ["fec0::/10", "siteLocal"],
  ["ff00::/8", "multicast"],
];

const parsedV4 = IPV4_FORBIDDEN.map(([cidr, name]) => [ipaddr.IPv4.parseCIDR(cidr), name] as const);
const parsedV6 = IPV6_FORBIDDEN.map(([cidr, name]) => [ipaddr.IPv6.parseCIDR(cidr), name] as const);
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR("2000::/3");

/** Any form ipaddr.js accepts. */
export function parseIp(ip: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  let raw = ip.startsWith("[") && ip.endsWith("]") ? ip.slice(1, -1) : ip;
  // ipaddr.js reads "::a.b.c.d" as mapped: spell the dotted tail as hex first, as WHATWG does.
  const tail = /^(.*:)(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})(%.*)?$/.exec(raw);
  if (tail) {
    const [a, b, c, d] = tail.slice(2, 6).map(Number);
    if ([a, b, c, d].some((n) => n > 255)) return null;
    raw = `${tail[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}${tail[6] ?? ""}`;
  }
  try {
    return ipaddr.parse(raw);
  } catch {
    return null;
  }
}

export function classifyAddress(ip: string): { allowed: boolean; range: string } {
  const addr = parseIp(ip);
  if (!addr) return { allowed: false, range: "invalid" };
  if (addr.kind() === "ipv4") {
    const v4 = addr as ipaddr.IPv4;
    for (const [cidr, name] of parsedV4) if (v4.match(cidr)) return { allowed: false, range: name };
    const range = v4.range();
    if (range !== "unicast") return { allowed: false, range };
    return { allowed: true, range: "unicast" };
  }
  const v6 = addr as ipaddr.IPv6;
  for (const [cidr, name] of parsedV6) {
    if (v6.match(cidr)) {
      if (name === "ipv4Mapped") {
        // Names what the mapped address points at; refused either way.
        return { allowed: false, range: `ipv4Mapped(${classifyAddress(v6.toIPv4Address().toString()).range})` };
      }
      return { allowed: false, range: name };
    }
  }
  if (!v6.match(GLOBAL_UNICAST_V6)) return { allowed: false, range: "reserved" };
  const range = v6.range();
  if (range !== "unicast") return { allowed: false, range };
  return { allowed: true, range: "unicast" };
}

export function isLoopback(ip: string): boolean {
  const addr = parseIp(ip);
  if (!addr) return false;
  return addr.range() === "loopback";
}
