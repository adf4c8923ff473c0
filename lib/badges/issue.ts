/**
 * The one call the badge route makes: from a listing and its current result to the SVG to serve.
 * A publishable result yields a signed badge (statement → DSSE envelope → SVG with the envelope in
 * <metadata>); anything else (no result, provisional, unpublished) yields the neutral unsigned
 * "not yet scored" badge, with the reason, so provisional scores never reach a badge.
 *
 * Statements are issued per hour window (see statement.ts), so within a window the same inputs give
 * the same bytes and the same ETag; BadgeCache memoises them so a warm route neither re-signs nor
 * re-renders, and answers If-None-Match with 304.
 */
import { createHash } from "node:crypto";
import { signStatement, type DsseEnvelope } from "./dsse";
import { signerFor, type Keyring } from "./keys";
import { DEFAULT_LABEL, labelRuleError } from "./label";
import type { LogoName } from "./logos";
import { renderReadinessBadge, type BadgeStyle } from "./render";
import { buildStatement, type BadgeStatement, type StatementInput, type StatementRefusal, type StatementTiming } from "./statement";

export interface IssueBadgeInput extends StatementInput {
  keyring: Keyring;
  style: BadgeStyle;
  label?: string;
  logo?: LogoName;
  now: Date;
  ttlSeconds?: number;
  issueWindowSeconds?: number;
}

export type IssuedBadge =
  | { signed: true; svg: string; etag: string; statement: BadgeStatement; envelope: DsseEnvelope; cacheControl: string }
  | { signed: false; svg: string; etag: string; refusal: StatementRefusal; cacheControl: string };

/** Strong ETag over the exact bytes served. */
export function etagOf(svg: string): string {
  return `"${createHash("sha256").update(svg).digest("base64url").slice(0, 22)}"`;
}

export function issueReadinessBadge(input: IssueBadgeInput): IssuedBadge {
  // The route's query parser applies the label rule first; a label that breaks it here is a wiring
  // mistake, and must not reach even the unsigned badge.
  const labelError = input.label === undefined || input.label === DEFAULT_LABEL ? null : labelRuleError(input.label);
  if (labelError) throw new RangeError(`badge label ${JSON.stringify(input.label)}: ${labelError}`);
  const timing: StatementTiming = { now: input.now, ttlSeconds: input.ttlSeconds, issueWindowSeconds: input.issueWindowSeconds, notBefore: input.keyring.active.notBefore };
  const built = buildStatement({ listing: input.listing, result: input.result, label: input.label, ...(input.logo ? { logo: input.logo } : {}) }, timing);
  if (!built.ok) {
    // Link to the catalog page only once it exists (docs/spec/scoring-system.md "Who sees what": "linking to the catalog page once published").
    const svg = renderReadinessBadge(null, { style: input.style, label: input.label, link: input.listing.published ? input.listing.url : undefined, ...(input.logo ? { logo: input.logo } : {}) });
    return { signed: false, svg, etag: etagOf(svg), refusal: built.error, cacheControl: "public, max-age=300" };
  }
  const envelope = signStatement(built.statement, signerFor(input.keyring));
  const svg = renderReadinessBadge(built.statement, { style: input.style, envelope });
  // Caches may keep it for the rest of the issue window at most; the statement itself lives longer.
  return { signed: true, svg, etag: etagOf(svg), statement: built.statement, envelope, cacheControl: "public, max-age=300, stale-while-revalidate=3300" };
}

/** Does an If-None-Match header match this ETag? Handles lists, `*` and weak comparison (RFC 9110 §13.1.2). */
export function ifNoneMatchHits(header: string | null | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  const strip = (t: string) => t.trim().replace(/^W\//, "");
  return header.split(",").some((t) => strip(t) === strip(etag));
}

/**
 * Bounded memo of issued badges. The key must include everything the bytes depend on; the route
 * builds it with `badgeCacheKey`. Entries die with their issue window, so a rotation or a new
 * result is picked up at the latest at the next window (and immediately if the key changes).
 */
export class BadgeCache {
  readonly #entries = new Map<string, { badge: IssuedBadge; until: number }>();
  constructor(readonly maxEntries = 10_000) {}

  get(key: string, nowMs: number): IssuedBadge | undefined {
    const e = this.#entries.get(key);
    if (!e) return undefined;
    if (e.until <= nowMs) {
      this.#entries.delete(key);
      return undefined;
    }
    // Re-insert to keep Map order as recency order (oldest first) for eviction.
    this.#entries.delete(key);
    this.#entries.set(key, e);
    return e.badge;
  }

  set(key: string, badge: IssuedBadge, untilMs: number): void {
    if (this.#entries.size >= this.maxEntries) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, { badge, until: untilMs });
  }

  get size(): number {
    return this.#entries.size;
  }
}

/** Everything an issued badge's bytes depend on, for BadgeCache. */
export function badgeCacheKey(input: Pick<IssueBadgeInput, "listing" | "result" | "style" | "label" | "logo" | "keyring">, windowStartMs: number): string {
  const { listing, result } = input;
  return JSON.stringify([
    listing.id,
    listing.slug,
    listing.url,
    listing.published,
    result ? [result.id, result.score, result.provisional, result.rubricVersion] : null,
    input.style,
    input.label ?? null,
    input.logo ?? null,
    input.keyring.active.keyid,
    windowStartMs,
  ]);
}
