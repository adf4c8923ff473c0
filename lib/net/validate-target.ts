import ipaddr from "ipaddr.js";
import { parseIp } from "./classify-address";
import { decideAddress } from "./address-rules";
import type { RefusalCode, ValidateOptions, ValidateResult } from "./types";

/**
 * Pure checks on a target URL before DNS. Raw-string checks run beside the WHATWG parse, which silently repairs input
 * other parsers read differently.
 */

// Local by definition (RFC 6761, 6762, 8375, .internal), and single labels (search domains).
const LOCAL_SUFFIXES = [".localhost", ".local", ".internal", ".home.arpa", ".localdomain", ".arpa", ".intranet", ".lan"];
const LOCAL_NAMES = new Set(["localhost", "localdomain", "local", "internal", "arpa"]);

function refuse(refusal: RefusalCode, detail: string): ValidateResult {
  return { ok: false, refusal, detail };
}

export function normaliseHostname(hostname: string): string {
  return hostname.toLowerCase().replace(/\.+$/, "");
}

export function effectivePort(url: URL): number {
  if (url.port) return Number(url.port);
  return url.protocol === "https:" ? 443 : 80;
}

export function allowListKeys(entries: readonly string[] | undefined): Set<string> {
  const keys = new Set<string>();
  for (const entry of entries ?? []) {
    let parsed: URL;
    try {
      parsed = new URL(`http://${entry.trim()}`);
    } catch {
      continue;
    }
    const host = normaliseHostname(parsed.hostname);
    if (!host) continue;
    if (parsed.port) keys.add(`${host}:${parsed.port}`);
    else {
      keys.add(`${host}:80`);
      keys.add(`${host}:443`);
    }
  }
  return keys;
}

export function isAllowListed(url: URL, keys: Set<string>): boolean {
  return keys.has(`${normaliseHostname(url.hostname)}:${effectivePort(url)}`);
}

export function ipLiteralOf(hostname: string): string | null {
  const host = normaliseHostname(hostname);
  if (host.startsWith("[") && host.endsWith("]")) {
    const inner = host.slice(1, -1);
    return ipaddr.IPv6.isValid(inner) ? inner : null;
  }
  if (ipaddr.IPv4.isValidFourPartDecimal(host)) return host;
  // A second reading so a parser difference never turns a numeric host into a DNS name.
  if (/^[0-9a-fx.]+$/i.test(host) && ipaddr.IPv4.isValid(host)) return ipaddr.IPv4.parse(host).toString();
  return null;
}

function isLocalName(host: string): boolean {
  if (LOCAL_NAMES.has(host)) return true;
  if (LOCAL_SUFFIXES.some((s) => host.endsWith(s))) return true;
  return !host.includes(".");
}

/** So the refusal still names a forbidden literal (an IPv6 zone id). */
function rawLiteralRefusal(raw: string, opts: ValidateOptions): ValidateResult | null {
  const m = /^[a-z][a-z0-9+.-]*:\/\/(?:[^/?#@]*@)?\[([^\]]+)\]/i.exec(raw);
  if (!m) return null;
  const inner = decodeURIComponent(m[1].replace(/%(?![0-9a-f]{2})/gi, "%25"));
  const addr = parseIp(inner);
  if (!addr) return null;
  const verdict = decideAddress(inner, false, opts);
  if (verdict.allowed) return null;
  return refuse("ip_literal_forbidden", `host [${inner}] is an IP literal in ${verdict.range}`);
}

export function validateTarget(input: string, opts: ValidateOptions = {}): ValidateResult {
  if (typeof input !== "string" || input.length === 0) return refuse("invalid_url", "empty URL");
  if (input.length > 8192) return refuse("invalid_url", "URL longer than 8192 characters");
  // Whitespace and control characters (incl. tab, CR, LF, which WHATWG strips silently), DEL,
  // and backslashes (which WHATWG reads as "/" for http(s) but other parsers do not).
  // eslint-disable-next-line no-control-regex
  const odd = /[\u0000-\u0020\u007f\\\u00a0\u1680\u2000-\u200f\u2028\u2029\u202f\u205f\u3000\ufeff]/.exec(input);
  if (odd) {
    const ch = odd[0] === "\\" ? "backslash" : `U+${odd[0].charCodeAt(0).toString(16).padStart(4, "0")}`;
    return refuse("ambiguous_url", `URL contains ${ch} at index ${odd.index}`);
  }

  const schemeMatch = /^([a-z][a-z0-9+.-]*):/i.exec(input);
  if (!schemeMatch) return refuse("invalid_url", "URL has no scheme");
  const scheme = schemeMatch[1].toLowerCase();
  if (scheme !== "https" && scheme !== "http") return refuse("scheme_not_allowed", `scheme ${scheme}: is not allowed`);
  if (!input.slice(schemeMatch[0].length).startsWith("//")) return refuse("invalid_url", "URL has no authority (expected scheme://host)");

  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return rawLiteralRefusal(input, opts) ?? refuse("invalid_url", "URL does not parse");
  }

  const keys = allowListKeys(opts.allowHosts);
  const allowListed = isAllowListed(url, keys);

  if (!allowListed && (opts.allowListOnly ?? process.env.TOLLGATE_NET_ALLOWLIST_ONLY === "1")) {
    return refuse("host_not_allowlisted", `only ${keys.size ? [...keys].join(", ") : "allow-listed hosts"} may be reached in allow-list-only mode`);
  }
  if (url.protocol === "http:" && !allowListed) return refuse("scheme_not_allowed", "plain http is allowed only for hosts on allowHosts");

  const afterSlashes = input.slice(schemeMatch[0].length + 2);
  const authority = afterSlashes.split(/[/?#]/, 1)[0];
  if (url.username || url.password || authority.includes("@")) {
    return refuse("credentials_in_url", "URL carries credentials (userinfo before the host)");
  }

  const hashAt = input.indexOf("#");
  const beforeHash = hashAt === -1 ? input : input.slice(0, hashAt);
  if (beforeHash.includes("?") && !opts.allowQuery) return refuse("query_not_allowed", "URL carries a query string");
  if (hashAt !== -1) return refuse("fragment_not_allowed", "URL carries a fragment");

  const host = normaliseHostname(url.hostname);
  if (!host) return refuse("invalid_url", "URL has an empty host");
  const literal = ipLiteralOf(host);
  if (literal !== null) {
    const verdict = decideAddress(literal, allowListed, opts);
    if (!verdict.allowed) {
      return refuse("ip_literal_forbidden", `host ${host} is an IP literal in ${verdict.range}`);
    }
  } else if (!allowListed && isLocalName(host)) {
    return refuse("host_forbidden", `host ${host} is a local name`);
  }

  const port = effectivePort(url);
  if (!allowListed) {
    const httpsPorts = opts.httpsPorts ?? [443];
    if (!httpsPorts.includes(port)) return refuse("port_not_allowed", `port ${port} is not allowed (allowed: ${httpsPorts.join(", ")})`);
  }

  // No trailing dot: SNI and Host must not carry one.
  if (url.hostname !== host) url.hostname = host;
  return { ok: true, url, allowListed, ipLiteral: literal };
}
