/** The badge route's one call: listing + current result → signed SVG, or the unsigned "not yet scored" one; memoised per issue window. */
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

export function etagOf(svg: string): string {
  return `"${createHash("sha256").update(svg).digest("base64url").slice(0, 22)}"`;
}

export function issueReadinessBadge(input: IssueBadgeInput): IssuedBadge {
  // The query parser applies the label rule first; a breaking label here is a wiring mistake.
  const labelError = input.label === undefined || input.label === DEFAULT_LABEL ? null : labelRuleError(input.label);
  if (labelError) throw new RangeError(`badge label ${JSON.stringify(input.label)}: ${labelError}`);
  const timing: StatementTiming = { now: input.now, ttlSeconds: input.ttlSeconds, issueWindowSeconds: input.issueWindowSeconds, notBefore: input.keyring.active.notBefore };
  const built = buildStatement({ listing: input.listing, result: input.result, label: input.label, ...(input.logo ? { logo: input.logo } : {}) }, timing);
  if (!built.ok) {
    const svg = renderReadinessBadge(null, { style: input.style, label: input.label, link: input.listing.published ? input.listing.url : undefined, ...(input.logo ? { logo: input.logo } : {}) });
    return { signed: false, svg, etag: etagOf(svg), refusal: built.error, cacheControl: "public, max-age=300" };
  }
  const envelope = signStatement(built.statement, signerFor(input.keyring));
  const svg = renderReadinessBadge(built.statement, { style: input.style, envelope });
  return { signed: true, svg, etag: etagOf(svg), statement: built.statement, envelope, cacheControl: "public, max-age=300, stale-while-revalidate=3300" };
}

/** Does an If-None-Match header match this ETag? Handles lists, `*` and weak comparison (RFC 9110 §13.1.2). */
export function ifNoneMatchHits(header: string | null | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  const strip = (t: string) => t.trim().replace(/^W\//, "");
  return header.split(",").some((t) => strip(t) === strip(etag));
}

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
