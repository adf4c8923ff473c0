/** Catalog browse order and its keyset cursor (docs/RANK.md "Catalog browse"); the shuffle key is md5, which SQL reproduces. */
import { createHash } from "node:crypto";
import { BROWSE_SEED_PERIOD_SECONDS } from "./constants";

/** floor(unix seconds ÷ 21600): ties rotate every 6 hours, a reload does not reshuffle. */
export function browseSeed(now: Date): number {
  const ms = now.getTime();
  if (!Number.isFinite(ms)) throw new RangeError("browseSeed needs a valid date");
  return Math.floor(Math.floor(ms / 1000) / BROWSE_SEED_PERIOD_SECONDS);
}

/** Lowercase hex; sort as plain code-unit strings. */
export function shuffleKey(listingId: string, seed: number): string {
  if (!Number.isSafeInteger(seed) || seed < 0) throw new RangeError(`seed must be a safe integer ≥ 0, got ${seed}`);
  return createHash("md5").update(`${seed}:${listingId}`, "utf8").digest("hex");
}

export interface BrowseKey {
  id: string;
  tier: number;
  sortWeight: number;
  /** Null (unscored) sorts after every scored row. */
  rankScore: number | null;
}

export interface BrowseRow extends BrowseKey {
  shuffleKey: string;
}

/** Code-unit comparison, never locale, to match COLLATE "C". */
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

export function orderForBrowse<T extends BrowseKey>(rows: readonly T[], seed: number): (T & { shuffleKey: string })[] {
  return rows.map((r) => ({ ...r, shuffleKey: shuffleKey(r.id, seed) })).sort(compareBrowse);
}

/** The last row of a page and its seed: the next page reuses it, so a rotation mid-scroll neither repeats nor skips. */
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

/** base64url JSON without the shuffle key, which decoding recomputes, so a client cannot forge a position. */
export function encodeCursor(row: BrowseKey & { seed: number }): string {
  const payload = { v: CURSOR_VERSION, seed: row.seed, tier: row.tier, sortWeight: row.sortWeight, rankScore: row.rankScore, id: row.id };
  const problem = validate(payload);
  if (problem) throw new RangeError(`cannot encode cursor: ${problem.field}: ${problem.message}`);
  return Buffer.from(JSON.stringify(payload), "utf8").toString("base64url");
}

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

/** The keyset predicate. */
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
