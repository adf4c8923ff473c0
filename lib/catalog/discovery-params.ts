/** The discovery API's query parameters: each filter applied or named in `unappliedFilters`, never dropped (docs/DISCOVERY.md "Parameters"). */
import { createHash } from "node:crypto";
import { AppError } from "@/lib/errors";
import { unstorableText } from "@/lib/listing-document/unstorable";
import { toCaip2 } from "@/lib/x402/assets";

export interface DiscoveryFilters {
  type?: string;
  payTo?: string;
  scheme?: string;
  network?: string;
  asset?: string;
  extensions?: string;
}

export const FILTER_NAMES = ["type", "payTo", "scheme", "network", "asset", "extensions"] as const;
export const DISCOVERY_MAX_LIMIT = 100;
export const DISCOVERY_DEFAULT_LIMIT = 20;
export const DISCOVERY_MAX_OFFSET = 1_000_000;
/** offset + limit at most this many resources. */
export const SEARCH_DEPTH = 1000;
export const SEARCH_QUERY_MAX = 400;

const ADDRESS = /^[A-Za-z0-9]{1,128}$/;
const TOKEN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function badParameter(name: string, message: string): AppError {
  return new AppError("bad_request", `${name} ${message}`, [{ pointer: `/${name}`, message }], { parameter: name });
}

/** EVM case-insensitive, base58 exact: as tollgate_pay_to_key in SQL. */
export function addressKey(a: string): string {
  return /^0x[0-9a-f]{40}$/i.test(a) ? a.toLowerCase() : a;
}

function single(q: URLSearchParams, name: string): string | undefined {
  const all = q.getAll(name);
  if (all.length === 0) return undefined;
  if (all.length > 1) throw badParameter(name, "is given more than once");
  const v = all[0];
  const bad = unstorableText(v);
  if (bad) throw badParameter(name, bad);
  return v;
}

function integer(q: URLSearchParams, name: string, min: number, max: number, fallback: number): number {
  const raw = single(q, name);
  if (raw === undefined) return fallback;
  if (!/^\d{1,7}$/.test(raw) || Number(raw) < min || Number(raw) > max) throw badParameter(name, `must be an integer ${min}–${max}`);
  return Number(raw);
}

/** Each checked for form; a well-formed value matching nothing is applied. */
export function parseFilters(q: URLSearchParams): DiscoveryFilters {
  const f: DiscoveryFilters = {};
  const type = single(q, "type");
  if (type !== undefined) {
    if (!/^[a-z][a-z0-9-]{0,31}$/.test(type)) throw badParameter("type", "must be a resource type such as http or mcp");
    f.type = type;
  }
  for (const name of ["payTo", "asset"] as const) {
    const v = single(q, name);
    if (v === undefined) continue;
    if (!ADDRESS.test(v)) throw badParameter(name, "must be an address: 1–128 letters and digits (0x-hex or base58)");
    f[name] = addressKey(v);
  }
  const scheme = single(q, "scheme");
  if (scheme !== undefined) {
    if (!TOKEN.test(scheme)) throw badParameter("scheme", "must be a payment scheme name such as exact");
    f.scheme = scheme;
  }
  const network = single(q, "network");
  if (network !== undefined) {
    // A v1 name (base, base-sepolia, …) reads as its CAIP-2 id, as the x402 SDKs do.
    const caip = toCaip2(network);
    if (!caip) throw badParameter("network", "must be a CAIP-2 network id such as eip155:8453");
    f.network = caip;
  }
  const ext = single(q, "extensions");
  if (ext !== undefined) {
    if (!TOKEN.test(ext)) throw badParameter("extensions", "must be an extension key such as bazaar");
    f.extensions = ext;
  }
  return f;
}

/** Sorted names of the parameters given but not applied. */
export function unappliedOf(q: URLSearchParams, known: readonly string[]): string[] {
  return [...new Set([...q.keys()])].filter((k) => !known.includes(k)).sort();
}

export interface ListParams {
  filters: DiscoveryFilters;
  limit: number;
  offset: number;
  unappliedFilters: string[];
}

export function parseListParams(q: URLSearchParams, extra: readonly string[] = []): ListParams {
  const filters = parseFilters(q);
  return {
    filters,
    limit: integer(q, "limit", 1, DISCOVERY_MAX_LIMIT, DISCOVERY_DEFAULT_LIMIT),
    offset: integer(q, "offset", 0, DISCOVERY_MAX_OFFSET, 0),
    unappliedFilters: unappliedOf(q, [...FILTER_NAMES, "limit", "offset", ...extra]),
  };
}

export interface SearchParams {
  query: string;
  filters: DiscoveryFilters;
  limit: number;
  offset: number;
  unappliedFilters: string[];
}

/** A cursor made for one query and filters is refused for another. */
function bindingOf(query: string, filters: DiscoveryFilters): string {
  return createHash("sha256").update(JSON.stringify([query, FILTER_NAMES.map((n) => filters[n] ?? null)])).digest("base64url").slice(0, 12);
}

export function encodeSearchCursor(offset: number, query: string, filters: DiscoveryFilters): string {
  return Buffer.from(JSON.stringify({ o: offset, b: bindingOf(query, filters) })).toString("base64url");
}

function decodeSearchCursor(raw: string, query: string, filters: DiscoveryFilters, limit: number): number {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
  } catch {
    throw badParameter("cursor", "is not a cursor this API returned");
  }
  const c = parsed as { o?: unknown; b?: unknown } | null;
  if (!c || !Number.isSafeInteger(c.o) || (c.o as number) < 0 || typeof c.b !== "string") throw badParameter("cursor", "is not a cursor this API returned");
  if (c.b !== bindingOf(query, filters)) throw badParameter("cursor", "was made for another query or other filters");
  if ((c.o as number) + limit > SEARCH_DEPTH) throw badParameter("cursor", `reaches past the first ${SEARCH_DEPTH} results`);
  return c.o as number;
}

export function parseSearchParams(q: URLSearchParams): SearchParams {
  const raw = single(q, "query");
  if (raw === undefined) throw badParameter("query", "is required");
  const query = raw.trim();
  if (query.length < 1 || query.length > SEARCH_QUERY_MAX) throw badParameter("query", `must be 1–${SEARCH_QUERY_MAX} characters`);
  const filters = parseFilters(q);
  const limit = integer(q, "limit", 1, DISCOVERY_MAX_LIMIT, DISCOVERY_DEFAULT_LIMIT);
  const cursor = single(q, "cursor");
  const offset = cursor === undefined || cursor === "" ? 0 : decodeSearchCursor(cursor, query, filters, limit);
  return { query, filters, limit, offset, unappliedFilters: unappliedOf(q, [...FILTER_NAMES, "query", "limit", "cursor"]) };
}
