/** What a badge states: score and band of a published listing's non-provisional result, else a refusal (docs/BADGES.md). */

import { DEFAULT_LABEL, labelRuleError } from "./label";
import { isLogoName, LOGO_NAMES, type LogoName } from "./logos";

export const STATEMENT_TYPE = "https://tollgate.dev/badge-statement/v1";

export type Band = "Getting started" | "Almost ready" | "Ready" | "Excellent";
export const BANDS: readonly Band[] = ["Getting started", "Almost ready", "Ready", "Excellent"];

/** Band edges: 0–59, 60–79, 80–89, 90–100. */
export function bandFor(score: number): Band {
  if (score >= 90) return "Excellent";
  if (score >= 80) return "Ready";
  if (score >= 60) return "Almost ready";
  return "Getting started";
}

export interface BadgeStatement {
  _type: typeof STATEMENT_TYPE;
  listing: { id: string; slug: string; url: string };
  result: { id: string; score: number; band: Band; rubricVersion: string; analysedAt: string };
  issuedAt: string;
  expiresAt: string;
  /** Signed, so a badge cannot be relabelled; held to the label rule (label.ts). */
  label?: string;
  logo?: LogoName;
}

export interface StatementInput {
  listing: { id: string; slug: string; url: string; published: boolean };
  result: {
    id: string;
    listingId: string;
    score: number;
    /** Must agree with the score if given; the band is always derived. */
    band?: string;
    rubricVersion: string;
    analysedAt: Date | string;
    provisional: boolean;
  } | null;
  label?: string;
  logo?: LogoName;
}

export interface StatementTiming {
  now: Date;
  /** Default 7 days, the seed's re-analysis interval. */
  ttlSeconds?: number;
  /** issuedAt is floored to this window (default 1 hour) so the bytes, and the ETag, are stable; never before `notBefore`. */
  issueWindowSeconds?: number;
  notBefore?: string;
}

export const DEFAULT_TTL_SECONDS = 7 * 86_400;
/** Verifiers refuse longer lives (bounds what a leaked retired key can do). */
export const MAX_TTL_SECONDS = 30 * 86_400;
export const DEFAULT_ISSUE_WINDOW_SECONDS = 3_600;

export type StatementRefusalCode =
  | "no_result"
  | "result_provisional"
  | "listing_unpublished"
  | "result_other_listing"
  | "score_invalid"
  | "band_mismatch"
  | "field_invalid"
  | "label_invalid"
  | "logo_invalid"
  | "ttl_invalid";

export interface StatementRefusal {
  code: StatementRefusalCode;
  message: string;
}

export type BuildStatementResult = { ok: true; statement: BadgeStatement } | { ok: false, error: StatementRefusal };

const refuse = (code: StatementRefusalCode, message: string): BuildStatementResult => ({ ok: false, error: { code, message } });

export function isoSeconds(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

export const ISO_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

function httpsUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return u.protocol === "https:" || (u.protocol === "http:" && (u.hostname === "localhost" || u.hostname === "127.0.0.1"));
  } catch {
    return false;
  }
}

export function buildStatement(input: StatementInput, timing: StatementTiming): BuildStatementResult {
  const { listing, result } = input;
  // Most fundamental reason first: it is the message an owner sees.
  if (!result) return refuse("no_result", "the listing has no readiness result yet");
  if (result.provisional) return refuse("result_provisional", "provisional scores are never shown on a badge");
  if (!listing.published) return refuse("listing_unpublished", "only published listings have a badge statement");
  if (result.listingId !== listing.id) return refuse("result_other_listing", "the result belongs to another listing");
  if (!Number.isInteger(result.score) || result.score < 0 || result.score > 100) {
    return refuse("score_invalid", `score must be an integer 0–100, got ${result.score}`);
  }
  const band = bandFor(result.score);
  if (result.band !== undefined && result.band !== band) {
    return refuse("band_mismatch", `score ${result.score} is in band "${band}", not "${result.band}"`);
  }
  for (const [name, v] of [["listing.id", listing.id], ["listing.slug", listing.slug], ["result.id", result.id], ["result.rubricVersion", result.rubricVersion]] as const) {
    if (typeof v !== "string" || v.length === 0 || v.length > 200) return refuse("field_invalid", `${name} must be a non-empty string of at most 200 characters`);
  }
  if (!httpsUrl(listing.url)) return refuse("field_invalid", "listing.url must be an https URL");
  const analysedMs = typeof result.analysedAt === "string" ? Date.parse(result.analysedAt) : result.analysedAt.getTime();
  if (!Number.isFinite(analysedMs)) return refuse("field_invalid", "result.analysedAt is not a valid time");
  const label = input.label === undefined || input.label === DEFAULT_LABEL ? undefined : input.label;
  const labelError = label === undefined ? null : labelRuleError(label);
  if (labelError) return refuse("label_invalid", labelError);
  if (input.logo !== undefined && !isLogoName(input.logo)) return refuse("logo_invalid", `logo must be one of ${LOGO_NAMES.join(", ")}`);

  const ttl = timing.ttlSeconds ?? DEFAULT_TTL_SECONDS;
  const windowS = timing.issueWindowSeconds ?? DEFAULT_ISSUE_WINDOW_SECONDS;
  if (!Number.isInteger(ttl) || ttl <= 0 || ttl > MAX_TTL_SECONDS) return refuse("ttl_invalid", `ttlSeconds must be an integer in 1..${MAX_TTL_SECONDS}`);
  if (!Number.isInteger(windowS) || windowS <= 0 || windowS >= ttl) return refuse("ttl_invalid", "issueWindowSeconds must be a positive integer below ttlSeconds");

  const nowMs = timing.now.getTime();
  let issuedMs = Math.floor(nowMs / (windowS * 1000)) * windowS * 1000;
  if (timing.notBefore !== undefined) {
    // Just after a rotation the window start can precede the new key; issue at its notBefore instead.
    const nb = Math.ceil(Date.parse(timing.notBefore) / 1000) * 1000;
    if (issuedMs < nb) issuedMs = Math.min(nb, Math.floor(nowMs / 1000) * 1000);
  }
  // Frozen all the way down: dsse.ts relies on it.
  const statement: BadgeStatement = Object.freeze({
    _type: STATEMENT_TYPE,
    listing: Object.freeze({ id: listing.id, slug: listing.slug, url: listing.url }),
    result: Object.freeze({ id: result.id, score: result.score, band, rubricVersion: result.rubricVersion, analysedAt: isoSeconds(analysedMs) }),
    issuedAt: isoSeconds(issuedMs),
    expiresAt: isoSeconds(issuedMs + ttl * 1000),
    ...(label === undefined ? {} : { label }),
    ...(input.logo === undefined ? {} : { logo: input.logo }),
  });
  return { ok: true, statement };
}

export function statementShapeError(v: unknown): string | null {
  const isObj = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);
  const exactKeys = (o: Record<string, unknown>, keys: string[], at: string): string | null => {
    for (const k of Object.keys(o)) if (!keys.includes(k)) return `unexpected field ${at}/${k}`;
    for (const k of keys) if (!(k in o)) return `missing field ${at}/${k}`;
    return null;
  };
  if (!isObj(v)) return "statement is not an object";
  const top = exactKeys(v, ["_type", "listing", "result", "issuedAt", "expiresAt", ...("label" in v ? ["label"] : []), ...("logo" in v ? ["logo"] : [])], "");
  if (top) return top;
  if (v._type !== STATEMENT_TYPE) return `/_type must be ${STATEMENT_TYPE}`;
  if (!isObj(v.listing)) return "/listing must be an object";
  if (!isObj(v.result)) return "/result must be an object";
  const l = exactKeys(v.listing, ["id", "slug", "url"], "/listing") ?? exactKeys(v.result, ["id", "score", "band", "rubricVersion", "analysedAt"], "/result");
  if (l) return l;
  for (const [p, x] of [["/listing/id", v.listing.id], ["/listing/slug", v.listing.slug], ["/listing/url", v.listing.url], ["/result/id", v.result.id], ["/result/rubricVersion", v.result.rubricVersion]] as const) {
    if (typeof x !== "string" || x.length === 0) return `${p} must be a non-empty string`;
  }
  const score = v.result.score;
  if (typeof score !== "number" || !Number.isInteger(score) || score < 0 || score > 100) return "/result/score must be an integer 0–100";
  if (v.result.band !== bandFor(score)) return `/result/band must be "${bandFor(score)}" for score ${score}`;
  for (const [p, x] of [["/result/analysedAt", v.result.analysedAt], ["/issuedAt", v.issuedAt], ["/expiresAt", v.expiresAt]] as const) {
    if (typeof x !== "string" || !ISO_SECONDS.test(x) || !Number.isFinite(Date.parse(x))) return `${p} must be an ISO 8601 UTC time to the second`;
  }
  if ("label" in v) {
    if (typeof v.label !== "string") return "/label must be a string";
    if (v.label === DEFAULT_LABEL) return `/label is left out for the default "${DEFAULT_LABEL}"`;
    const why = labelRuleError(v.label);
    if (why) return `/label breaks the label rule: ${why}`;
  }
  if ("logo" in v && !isLogoName(v.logo)) return `/logo must be one of ${LOGO_NAMES.join(", ")}`;
  return null;
}
