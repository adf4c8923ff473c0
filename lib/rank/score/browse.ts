/**
 * Catalog browse order (docs/spec/scoring-system.md "Where rank decides the order"; docs/spec/scoring-notes.md "Browse order"):
 *
 *   tier ↑ → sortWeight ↓ → rankScore ↓ (unscored last) → seeded shuffle, rotates every 6 h → id ↑
 *
 * The shuffle key must be computable by the database too, so a page can be ordered and cut in SQL
 * with keyset pagination (no OFFSET). It is md5 of `${seed}:${id}` as 32 lowercase hex characters,
 * compared bytewise, which PostgreSQL reproduces exactly:
 *
 *   md5(($seed)::text || ':' || id::text) COLLATE "C"
 *
 * md5 is used as a well-spread, portable hash, not for security: nothing secret rides on the order.
 * The final `id` tie-break only matters on an md5 collision, and makes the order total.
 */
import { createHash } from "node:crypto";
import { BROWSE_SEED_PERIOD_SECONDS } from "./constants";

/** floor(unix seconds ÷ 21600): changes every 6 hours, so ties rotate but a reload does not reshuffle. */
export function browseSeed(now: Date): number {
  const ms = now.getTime();
  if (!Number.isFinite(ms)) throw new RangeError("browseSeed needs a valid date");
  return Math.floor(Math.floor(ms / 1000) / BROWSE_SEED_PERIOD_SECONDS);
}

/** md5(`${seed}:${listingId}`) in lowercase hex; sort ascending as plain (code-unit) strings. */
export function shuffleKey(listingId: string, seed: number): string {
  if (!Number.isSafeInteger(seed) || seed < 0) throw new RangeError(`seed must be a safe integer ≥ 0, got ${seed}`);
  return createHash("md5").update(`${seed}:${listingId}`, "utf8").digest("hex");
}

export interface BrowseKey {
  id: string;
  /** Curation tier, lower first (an explicit, visible lever). */
  tier: number;
  /** Curation weight, higher first. */
  sortWeight: number;
  /** Null when unscored; unscored rows sort after every scored one. */
  rankScore: number | null;
}

export interface BrowseRow extends BrowseKey {
  shuffleKey: string;
}

/** Negative when `a` comes first. Strings compare by code unit, never by locale, to match COLLATE "C". */
export function compareBrowse(a: BrowseRow, b: BrowseRow): number {
  if (a.tier !== b.tier) return a.tier - b.tier;
  if (a.sortWeight !== b.sortWeight) return b.sortWeight - a.sortWeight;
  if (a.rankScore !== b.rankScore) {
    if (a.rankScore === null) return 1;
    if (b.rankScore === null) return -1;
    return b.rankScore - a.rankScore;
  }
  if (a.shuffleKey !== b.shuffleKey) return a.shuffleKey < b.shuffleKey ? -1 : 1;
  if (a.id !== b.id) return a.id < b.id ? -1 : 1;
  return 0;
}

/** The browse order for one seed, computed in memory (the SQL path orders the same way). */
export function orderForBrowse<T extends BrowseKey>(rows: readonly T[], seed: number): (T & { shuffleKey: string })[] {
  return rows.map((r) => ({ ...r, shuffleKey: shuffleKey(r.id, seed) })).sort(compareBrowse);
}

// ---------------------------------------------------------------------------------------------------
// Keyset cursor
// ---------------------------------------------------------------------------------------------------

/**
 * The last row of a page plus the seed its order was built with. The next page reuses that seed, so a
 * 6-hour rotation in the middle of a scroll neither repeats nor skips a listing.
 */
export interface BrowseCursor extends BrowseRow {
  seed: number;
}

export type DecodeCursorResult =
  | { ok: true; cursor: BrowseCursor }
  | { ok: false; field: "cursor" | "v" | keyof BrowseKey | "seed" | (string & {}); message: string };

const CURSOR_VERSION = 1;
const MAX_CURSOR_LENGTH = 1024;
const MAX_ID_LENGTH = 256;
const CURSOR_FIELDS = ["v", "seed", "tier", "sortWeight", "rankScore", "id"] as const;

/**
 * base64url of `{"v":1,"seed","tier","sortWeight","rankScore","id"}`. The shuffle key is not carried:
 * it is a function of seed and id, so decoding recomputes it and a client cannot forge a position.
 */
export function encodeCursor(row: BrowseKey & { seed: number }): string {
  const payload = { v: CURSOR_VERSION, seed: row.seed, tier: row.tier, sortWeight: row.sortWeight, rankScore: row.rankScore, id: row.id };
  const problem = validate(payload);
  if (problem) throw new RangeError(`cannot encode cursor: ${problem.field}: ${problem.message}`);
  return Buffer.from(JSON.stringify(payload), "utf8").toString("base64url");
}

/** Parses a client-supplied cursor; never throws. An error names the field that is wrong. */
export function decodeCursor(str: string): DecodeCursorResult {
  if (typeof str !== "string" || str.length === 0) return { ok: false, field: "cursor", message: "must be a non-empty string" };
  if (str.length > MAX_CURSOR_LENGTH) return { ok: false, field: "cursor", message: `must be at most ${MAX_CURSOR_LENGTH} characters` };
  if (!/^[A-Za-z0-9_-]+$/.test(str)) return { ok: false, field: "cursor", message: "must be base64url" };
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(str, "base64url").toString("utf8"));
  } catch {
    return { ok: false, field: "cursor", message: "does not decode to JSON" };
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return { ok: false, field: "cursor", message: "must decode to a JSON object" };
  }
  const obj = parsed as Record<string, unknown>;
  for (const key of Object.keys(obj)) {
    if (!(CURSOR_FIELDS as readonly string[]).includes(key)) return { ok: false, field: key, message: "is not a cursor field" };
  }
  const problem = validate(obj);
  if (problem) return { ok: false, ...problem };
  const { seed, tier, sortWeight, rankScore, id } = obj as unknown as BrowseCursor;
  return { ok: true, cursor: { seed, tier, sortWeight, rankScore, id, shuffleKey: shuffleKey(id, seed) } };
}

/** True when `row` (keyed under the cursor's seed) comes after the cursor: the keyset predicate. */
export function isAfterCursor(row: BrowseRow, cursor: BrowseCursor): boolean {
  return compareBrowse(row, cursor) > 0;
}

function validate(obj: Record<string, unknown>): { field: string; message: string } | null {
  if (obj.v !== CURSOR_VERSION) return { field: "v", message: `must be ${CURSOR_VERSION}` };
  if (!Number.isSafeInteger(obj.seed) || (obj.seed as number) < 0) return { field: "seed", message: "must be an integer ≥ 0" };
  if (!isFiniteNumber(obj.tier)) return { field: "tier", message: "must be a finite number" };
  if (!isFiniteNumber(obj.sortWeight)) return { field: "sortWeight", message: "must be a finite number" };
  if (obj.rankScore !== null && !(isFiniteNumber(obj.rankScore) && obj.rankScore >= 0)) {
    return { field: "rankScore", message: "must be a number ≥ 0 or null" };
  }
  if (typeof obj.id !== "string" || obj.id.length === 0 || obj.id.length > MAX_ID_LENGTH) {
    return { field: "id", message: `must be a non-empty string of at most ${MAX_ID_LENGTH} characters` };
  }
  return null;
}

function isFiniteNumber(x: unknown): x is number {
  return typeof x === "number" && Number.isFinite(x);
}
