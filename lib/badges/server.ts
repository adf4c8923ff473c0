/**
 * The badge routes' glue to the database and the process: the signing keyring (one per process,
 * loaded from the environment or <dataDir>/badge-keys.json), a listing's badge from its current
 * result, a result's status for verifiers, and reading a verification request body. The routes under
 * app/badges, app/api/badges and app/.well-known only parse, call one of these, and respond.
 */
import { db } from "@/lib/db";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { readBodyText } from "@/lib/http";
import { isPublic, isUnseen } from "@/lib/listings/visibility";
import { BadgeCache, badgeCacheKey, issueReadinessBadge, type IssuedBadge } from "./issue";
import { loadKeyring, publicKeySet, type Keyring, type PublicKeySet } from "./keys";
import type { LogoName } from "./logos";
import type { BadgeStyle } from "./render";
import { BANDS, DEFAULT_ISSUE_WINDOW_SECONDS, type StatementInput } from "./statement";
import { MAX_INPUT_BYTES, verifyBadge, type ResultStatus, type VerifyResult } from "./verify";

/** A result's status; for a superseded one, the result that replaced it as the listing's pointer. */
export interface ResultStatusReport {
  status: ResultStatus;
  currentResultId?: string | null;
}

// ---------------------------------------------------------------------------------------------
// The keyring: loaded once per process. A failed load is not remembered, so fixing the
// environment and retrying works without a restart; a good one is kept until the process ends
// (a rotation by another process is picked up on restart; see docs/BADGES.md "Serving").

const globalForBadges = globalThis as unknown as { tollgateBadgeKeyring?: Promise<Keyring>; tollgateBadgeCache?: BadgeCache };

export async function badgeKeyring(): Promise<Keyring> {
  if (!globalForBadges.tollgateBadgeKeyring) {
    const p = (async () => {
      const loaded = await loadKeyring({ env: process.env, dataDir: env().dataDir });
      if (!loaded.ok) throw new AppError("unavailable", `badge signing is not configured: ${loaded.error.message}`, [], { reason: loaded.error.code });
      for (const w of loaded.warnings) console.warn(`badges: ${w}`);
      return loaded.keyring;
    })();
    globalForBadges.tollgateBadgeKeyring = p;
    p.catch(() => {
      if (globalForBadges.tollgateBadgeKeyring === p) globalForBadges.tollgateBadgeKeyring = undefined;
    });
  }
  return globalForBadges.tollgateBadgeKeyring;
}

/** Use this keyring from now on (tests; an operator's in-process rotation after saveKeyring). */
export function setBadgeKeyring(keyring: Keyring | undefined): void {
  globalForBadges.tollgateBadgeKeyring = keyring ? Promise.resolve(keyring) : undefined;
}

/** The key set served at /.well-known/tollgate-badge-keys.json (keys no live badge needs left out). */
export async function badgeKeySet(now: Date): Promise<PublicKeySet> {
  return publicKeySet(await badgeKeyring(), { now });
}

function badgeCache(): BadgeCache {
  return (globalForBadges.tollgateBadgeCache ??= new BadgeCache());
}

// ---------------------------------------------------------------------------------------------
// Issuing.

/** The public catalog page of a listing (docs/spec/scoring-system.md "Who sees what": the badge links there once published). */
export function catalogUrl(origin: string, slug: string): string {
  return `${origin}/listings/${encodeURIComponent(slug)}`;
}

export type BadgeFormat = "svg" | "envelope";

/**
 * The badge route's one dynamic segment: "<slug>.svg" is the SVG, "<slug>.dsse.json" the DSSE
 * envelope on its own. Anything else (no suffix, an empty slug) is null, which the route answers 404.
 */
export function parseBadgeSegment(segment: string): { slug: string; format: BadgeFormat } | null {
  const m = /^(.+?)\.(svg|dsse\.json)$/.exec(segment);
  if (!m || m[1].length > 200) return null;
  return { slug: m[1], format: m[2] === "svg" ? "svg" : "envelope" };
}

export interface ListingBadge {
  listing: { id: string; slug: string; published: boolean };
  badge: IssuedBadge;
}

export interface BadgeForListingOptions {
  /** Origin for the catalog link; defaults to this deployment's configured origin (lib/env publicOrigin). */
  origin?: string;
  /** The logo drawn left of the label (`?logo=`). */
  logo?: LogoName;
}

/**
 * The badge for a listing named by slug (or id), or null if there is no such listing or it is a
 * draft (never in the catalog; answered like no listing, so no draft's existence is confirmed). Only the
 * listing's published pointer is read; it never names a provisional result (a database trigger
 * refuses that), and issueReadinessBadge refuses one again, so a provisional score never reaches a
 * badge. Everything else (no result, not published, a stored band that contradicts the score) gets
 * the unsigned "not yet scored" badge. Bytes are memoised per issue window; the key includes the
 * result id, so a new result is a new badge and a new ETag at once.
 */
export async function badgeForListing(slugOrId: string, style: BadgeStyle, label: string | undefined, now: Date, opts: BadgeForListingOptions = {}): Promise<ListingBadge | null> {
  const logo = opts.logo;
  const prisma = await db();
  const select = {
    id: true,
    slug: true,
    publicationState: true,
    deletedAt: true,
    currentResult: { select: { id: true, listingId: true, total: true, band: true, rubricVersion: true, provisional: true, createdAt: true } },
  } as const;
  const row = (await prisma.listing.findUnique({ where: { slug: slugOrId }, select })) ?? (await prisma.listing.findUnique({ where: { id: slugOrId }, select }));
  // A draft has never been in the catalog: it is not found, exactly like no such listing, so the
  // public badge route cannot confirm that another seller's draft id or slug exists (issue #20
  // item 6; the rule lib/listings/access.ts keeps for the seller routes).
  // A deleted listing (its tombstone) is not found either, as before it kept its history.
  if (!row || isUnseen(row)) return null;

  const origin = opts.origin ?? env().publicOrigin;
  const published = isPublic(row);
  const r = row.currentResult;
  const input: StatementInput = {
    listing: { id: row.id, slug: row.slug, url: catalogUrl(new URL(origin).origin, row.slug), published },
    result: r ? { id: r.id, listingId: r.listingId, score: r.total, band: storedBand(r.band), rubricVersion: r.rubricVersion, analysedAt: r.createdAt, provisional: r.provisional } : null,
  };
  const keyring = await badgeKeyring();
  const windowMs = DEFAULT_ISSUE_WINDOW_SECONDS * 1000;
  const windowStart = Math.floor(now.getTime() / windowMs) * windowMs;
  const key = badgeCacheKey({ ...input, keyring, style, label, logo }, windowStart);
  const cache = badgeCache();
  let badge = cache.get(key, now.getTime());
  if (!badge) {
    badge = issueReadinessBadge({ ...input, keyring, style, label, ...(logo ? { logo } : {}), now });
    cache.set(key, badge, windowStart + windowMs);
  }
  return { listing: { id: row.id, slug: row.slug, published }, badge };
}

/**
 * The stored band, as the label the statement uses. The column is a free string: the engine's band
 * has an id ("almost-ready") and a label ("Almost ready"); either spelling is accepted. Anything else
 * is passed through, so a record whose band contradicts its score is refused (band_mismatch → the
 * unsigned badge) rather than signed.
 */
function storedBand(band: string): string {
  const slug = (s: string) => s.trim().toLowerCase().replace(/[\s_]+/g, "-");
  return BANDS.find((b) => slug(b) === slug(band)) ?? band;
}

// ---------------------------------------------------------------------------------------------
// Status, for verifiers (GET /api/badges/status and the verify route).

/**
 * current: the listing's published result. superseded: another non-provisional result of the same
 * listing, not revoked, that the published pointer has moved away from; `currentResultId` names the
 * result the pointer holds now (null if the listing has none). revoked: a moderator withdrew it
 * (ResultRevocation), whether or not it is still current. unknown: no such result for that listing,
 * or a provisional one (which no badge ever states).
 *
 * Supersession is derived, not recorded: the pointer (`Listing.currentResultId`) is the one fact,
 * and results are immutable, so "not the pointer" is exactly "replaced". Nothing has to be written
 * when the pointer moves, and nothing can disagree with it.
 */
export async function resultStatus(resultId: string, listingId: string): Promise<ResultStatusReport> {
  const prisma = await db();
  const result = await prisma.readinessResult.findUnique({
    where: { id: resultId },
    select: { listingId: true, provisional: true, listing: { select: { currentResultId: true } } },
  });
  if (!result || result.listingId !== listingId) return { status: "unknown" };
  const revoked = await prisma.resultRevocation.findUnique({ where: { resultId }, select: { resultId: true } });
  if (revoked) return { status: "revoked" };
  if (result.listing.currentResultId === resultId) return { status: "current" };
  return result.provisional ? { status: "unknown" } : { status: "superseded", currentResultId: result.listing.currentResultId };
}

export const STATUS_QUERY_PARAMS = ["result", "listing"] as const;

/** `?result=<id>&listing=<id>`, both required, nothing else; a bad query is a 400 naming the parameter. */
export function parseStatusQuery(searchParams: URLSearchParams): { resultId: string; listingId: string } {
  const seen = new Set<string>();
  for (const name of searchParams.keys()) {
    const shown = name.length > 40 ? `${name.slice(0, 40)}…` : name;
    if (!(STATUS_QUERY_PARAMS as readonly string[]).includes(name)) {
      throw new AppError("bad_request", `unknown query parameter "${shown}"; allowed: ${STATUS_QUERY_PARAMS.join(", ")}`, [], { param: shown, reason: "unknown_parameter" });
    }
    if (seen.has(name)) throw new AppError("bad_request", `query parameter "${name}" given more than once`, [], { param: name, reason: "duplicate_parameter" });
    seen.add(name);
  }
  const value = (name: (typeof STATUS_QUERY_PARAMS)[number]) => {
    const v = searchParams.get(name);
    if (v === null || v === "") throw new AppError("bad_request", `query parameter "${name}" is required`, [], { param: name, reason: "missing_parameter" });
    if (v.length > 200) throw new AppError("bad_request", `query parameter "${name}" is longer than 200 characters`, [], { param: name, reason: "invalid_parameter" });
    return v;
  };
  return { resultId: value("result"), listingId: value("listing") };
}

// ---------------------------------------------------------------------------------------------
// Verification (POST /api/badges/verify).

const SVG_TYPES = ["image/svg+xml", "text/plain"];
const JSON_TYPES = ["application/json", "application/vnd.dsse.envelope.v1+json"];

/**
 * The body to verify: an SVG (image/svg+xml or text/plain; text/plain may also carry envelope JSON)
 * or a DSSE envelope (application/json). Read at most MAX_INPUT_BYTES; anything else is a 400 that
 * says what is wrong.
 */
export async function readVerifyBody(req: Request): Promise<string> {
  const contentType = (req.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (!contentType) throw new AppError("bad_request", `missing Content-Type; send ${[...SVG_TYPES, "application/json"].join(", ")}`, [], { reason: "content_type_missing" });
  const isSvg = SVG_TYPES.includes(contentType);
  const isJson = JSON_TYPES.includes(contentType);
  if (!isSvg && !isJson) throw new AppError("bad_request", `unsupported Content-Type ${contentType}; send ${[...SVG_TYPES, "application/json"].join(", ")}`, [], { reason: "content_type_unsupported" });
  // Bounded like every route body (lib/http.ts): Content-Length first, then the streamed count; 413 past 256 KiB.
  const text = await readBodyText(req, MAX_INPUT_BYTES, "a badge or its envelope (no badge is that large)");
  const trimmed = text.replace(/^\uFEFF/, "").trim();
  if (!trimmed) throw new AppError("bad_request", "request body is empty; expected an SVG badge or a DSSE envelope", [{ pointer: "", message: "empty body" }], { reason: "body_empty" });
  if (isJson) {
    try {
      JSON.parse(trimmed);
    } catch (e) {
      throw new AppError("bad_request", `request body is not JSON: ${(e as Error).message}`, [{ pointer: "", message: "not JSON" }], { reason: "body_not_json" });
    }
    if (!trimmed.startsWith("{")) throw new AppError("bad_request", "request body must be a DSSE envelope object", [{ pointer: "", message: "not an object" }], { reason: "body_not_envelope" });
  } else if (contentType === "image/svg+xml" && !trimmed.startsWith("<")) {
    throw new AppError("bad_request", "Content-Type is image/svg+xml but the body is not an SVG document", [{ pointer: "", message: "not SVG" }], { reason: "body_not_svg" });
  }
  return text;
}

/** Verify against this deployment's own key set and result statuses. */
export async function verifyLocally(input: string, now: Date): Promise<VerifyResult> {
  return verifyBadge(input, { keys: await badgeKeySet(now), now, resultStatus });
}
