/** The badge routes' glue to the database and process: keyring, a listing's badge, result status, verify body. */
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

export interface ResultStatusReport {
  status: ResultStatus;
  currentResultId?: string | null;
}

// The keyring, loaded once per process; a failed load is not kept, so fixing the env and retrying
// works. Another process's rotation is picked up on restart (docs/BADGES.md "Serving").

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

export function setBadgeKeyring(keyring: Keyring | undefined): void {
  globalForBadges.tollgateBadgeKeyring = keyring ? Promise.resolve(keyring) : undefined;
}

export async function badgeKeySet(now: Date): Promise<PublicKeySet> {
  return publicKeySet(await badgeKeyring(), { now });
}

function badgeCache(): BadgeCache {
  return (globalForBadges.tollgateBadgeCache ??= new BadgeCache());
}

export function catalogUrl(origin: string, slug: string): string {
  return `${origin}/listings/${encodeURIComponent(slug)}`;
}

export type BadgeFormat = "svg" | "envelope";

/** "<slug>.svg" is the SVG, "<slug>.dsse.json" the envelope; anything else null (404). */
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
  origin?: string;
  logo?: LogoName;
}

/**
 * The badge for a listing by slug or id; null for none, a draft or a tombstone (not found alike, so no
 * draft's existence is confirmed). Only the published pointer is read, so no provisional score reaches
 * a badge; anything unpublishable gets the unsigned badge. Memoised per issue window and result id.
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
  // A draft or tombstone is not found, exactly like no listing (the rule lib/listings/access.ts keeps).
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

/** "almost-ready" or "Almost ready"; anything else passes through to be refused. */
function storedBand(band: string): string {
  const slug = (s: string) => s.trim().toLowerCase().replace(/[\s_]+/g, "-");
  return BANDS.find((b) => slug(b) === slug(band)) ?? band;
}

/**
 * current: the listing's published result; superseded: an older non-provisional, non-revoked one
 * (`currentResultId` names the pointer now); revoked: withdrawn by a moderator; unknown: anything else.
 * Supersession is derived from the pointer, never recorded, so nothing can disagree with it.
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

const SVG_TYPES = ["image/svg+xml", "text/plain"];
const JSON_TYPES = ["application/json", "application/vnd.dsse.envelope.v1+json"];

export async function readVerifyBody(req: Request): Promise<string> {
  const contentType = (req.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (!contentType) throw new AppError("bad_request", `missing Content-Type; send ${[...SVG_TYPES, "application/json"].join(", ")}`, [], { reason: "content_type_missing" });
  const isSvg = SVG_TYPES.includes(contentType);
  const isJson = JSON_TYPES.includes(contentType);
  if (!isSvg && !isJson) throw new AppError("bad_request", `unsupported Content-Type ${contentType}; send ${[...SVG_TYPES, "application/json"].join(", ")}`, [], { reason: "content_type_unsupported" });
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

export async function verifyLocally(input: string, now: Date): Promise<VerifyResult> {
  return verifyBadge(input, { keys: await badgeKeySet(now), now, resultStatus });
}
