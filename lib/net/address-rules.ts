import os from "node:os";
import ipaddr from "ipaddr.js";
import { classifyAddress, isLoopback, parseIp } from "./classify-address";
import type { AddressPolicy } from "./types";

/**
 * Which addresses a request may connect to, first matching rule deciding (docs/SSRF.md "Address rules"): operator
 * deny, cloud endpoints, this host's own addresses (all refused always), loopback for allowHosts, operator allow,
 * then classifyAddress.
 */

export interface ParsedRange {
  cidr: string;
  range: [ipaddr.IPv4 | ipaddr.IPv6, number];
}

/** Rule 2: no allow range lifts them. */
const CLOUD_ENDPOINTS = ["169.254.169.254", "fd00:ec2::254", "168.63.129.16"];

/** IPv4-mapped IPv6 as IPv4, so ranges compare alike. */
function canonical(ip: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const addr = parseIp(ip);
  if (!addr) return null;
  if (addr.kind() === "ipv6" && (addr as ipaddr.IPv6).isIPv4MappedAddress()) return (addr as ipaddr.IPv6).toIPv4Address();
  return addr;
}

function key(addr: ipaddr.IPv4 | ipaddr.IPv6): string {
  return addr.toNormalizedString();
}

const CLOUD = new Set(CLOUD_ENDPOINTS.map((ip) => key(canonical(ip)!)));

/** A bare address is a /32 or /128; a non-CIDR entry throws naming `source`. */
export function parseRanges(value: string | readonly string[] | undefined, source = "range list"): ParsedRange[] {
  if (value === undefined) return [];
  const entries = (typeof value === "string" ? value.split(/[\s,]+/) : [...value]).map((e) => e.trim()).filter(Boolean);
  return entries.map((entry) => {
    try {
      // Spelled out only: a dotted quad or IPv6 (no short or hex IPv4).
      const spelled = entry.split("/")[0];
      if (!ipaddr.IPv4.isValidFourPartDecimal(spelled) && !(spelled.includes(":") && ipaddr.IPv6.isValid(spelled))) throw new Error("not spelled out");
      if (entry.includes("/")) {
        const [addr, bits] = ipaddr.parseCIDR(entry);
        const canon = addr.kind() === "ipv6" && (addr as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96 ? ([(addr as ipaddr.IPv6).toIPv4Address(), bits - 96] as [ipaddr.IPv4, number]) : ([addr, bits] as [ipaddr.IPv4 | ipaddr.IPv6, number]);
        return { cidr: entry, range: canon };
      }
      const addr = canonical(entry);
      if (!addr || !ipaddr.isValid(entry)) throw new Error("not an address");
      return { cidr: entry, range: [addr, addr.kind() === "ipv4" ? 32 : 128] as [ipaddr.IPv4 | ipaddr.IPv6, number] };
    } catch {
      throw new Error(`${source}: ${JSON.stringify(entry)} is not a CIDR range or an IP address (e.g. 10.0.0.0/8, 2001:db8::/32)`);
    }
  });
}

function inRanges(addr: ipaddr.IPv4 | ipaddr.IPv6, ranges: readonly ParsedRange[]): ParsedRange | null {
  for (const r of ranges) if (addr.kind() === r.range[0].kind() && addr.match(r.range)) return r;
  return null;
}

/** Re-read every few seconds: interfaces change. */
let ownCache: { at: number; keys: Set<string> } | null = null;
export function ownAddresses(now = Date.now()): Set<string> {
  if (ownCache && now - ownCache.at < 5_000) return ownCache.keys;
  const keys = new Set<string>();
  for (const list of Object.values(os.networkInterfaces())) {
    for (const a of list ?? []) {
      const addr = canonical(a.address.split("%")[0]);
      if (addr) keys.add(key(addr));
    }
  }
  ownCache = { at: now, keys };
  return keys;
}

export interface AddressRuleOptions {
  /** Default TOLLGATE_NET_DENY. */
  denyRanges?: readonly string[];
  /** Default TOLLGATE_NET_ALLOW. */
  allowRanges?: readonly string[];
  /** Default os.networkInterfaces() (tests name a public one). */
  ownAddresses?: readonly string[];
  addressPolicy?: AddressPolicy;
}

const envCache = new Map<string, ParsedRange[]>();
function fromEnv(name: "TOLLGATE_NET_DENY" | "TOLLGATE_NET_ALLOW"): ParsedRange[] {
  const value = process.env[name] ?? "";
  const hit = envCache.get(`${name}=${value}`);
  if (hit) return hit;
  const parsed = parseRanges(value, name);
  envCache.set(`${name}=${value}`, parsed);
  return parsed;
}

export interface AddressDecision {
  allowed: boolean;
  /** e.g. "private", "operatorDeny(10.0.0.0/8)", "ownAddress". */
  range: string;
}

export function decideAddress(ip: string, allowListed: boolean, opts: AddressRuleOptions = {}): AddressDecision {
  const addr = canonical(ip);
  if (!addr) return { allowed: false, range: "invalid" };
  const deny = opts.denyRanges ? parseRanges(opts.denyRanges, "denyRanges") : fromEnv("TOLLGATE_NET_DENY");
  const denied = inRanges(addr, deny);
  if (denied) return { allowed: false, range: `operatorDeny(${denied.cidr})` };
  // Named as classifyAddress names them.
  if (CLOUD.has(key(addr))) return { allowed: false, range: classifyAddress(addr.toString()).range };
  if (!isLoopback(addr.toString())) {
    const own = opts.ownAddresses ? new Set(opts.ownAddresses.map((a) => canonical(a)).filter((a): a is ipaddr.IPv4 | ipaddr.IPv6 => !!a).map(key)) : ownAddresses();
    if (own.has(key(addr))) return { allowed: false, range: "ownAddress" };
  }
  if (allowListed && isLoopback(ip)) return { allowed: true, range: "loopback(allowHosts)" };
  const allow = opts.allowRanges ? parseRanges(opts.allowRanges, "allowRanges") : fromEnv("TOLLGATE_NET_ALLOW");
  const allowed = inRanges(addr, allow);
  if (allowed) return { allowed: true, range: `operatorAllow(${allowed.cidr})` };
  return (opts.addressPolicy ?? classifyAddress)(ip);
}
