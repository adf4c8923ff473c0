/**
 * `Catalog-Api-Version: MAJOR.MINOR` (docs/spec/scoring-notes.md "API versions"). rankScore changed meaning when the
 * paid-tier factor was removed, so clients pinned below 1.55 receive `rankScore: null` rather than a
 * number they would misread (docs/spec/scoring-system.md "Removed · paid tier").
 *
 * Readings: a missing header means the client takes the current version. A header that is present but
 * empty, signed, has leading zeros, extra parts or several values is malformed: "1.055" and "1.55"
 * must not silently mean the same. MINOR is an integer, so 1.6 is below 1.55.
 */
import { CATALOG_API_VERSION_HEADER, RANK_SCORE_MIN_API_VERSION } from "./constants";

export interface ApiVersion {
  major: number;
  minor: number;
}

export type ApiVersionCheck =
  | { ok: true; atLeast: boolean; /** null when the header was absent (treated as current). */ version: ApiVersion | null }
  | { ok: false; header: typeof CATALOG_API_VERSION_HEADER; value: string; message: string };

const VERSION = /^(0|[1-9]\d{0,5})\.(0|[1-9]\d{0,5})$/;

export function parseApiVersion(value: string): ApiVersion | null {
  const m = VERSION.exec(value.trim());
  return m ? { major: Number(m[1]), minor: Number(m[2]) } : null;
}

/** Whether the client's `Catalog-Api-Version` is at least `min`; an error value names the header. */
export function apiVersionAtLeast(header: string | null | undefined, min: string): ApiVersionCheck {
  const floor = parseApiVersion(min);
  if (!floor) throw new RangeError(`minimum version must be MAJOR.MINOR, got ${min}`);
  if (header === null || header === undefined) return { ok: true, atLeast: true, version: null };
  const version = parseApiVersion(header);
  if (!version) {
    return { ok: false, header: CATALOG_API_VERSION_HEADER, value: header, message: `${CATALOG_API_VERSION_HEADER} must be MAJOR.MINOR (e.g. ${RANK_SCORE_MIN_API_VERSION}), got ${JSON.stringify(header)}` };
  }
  const atLeast = version.major !== floor.major ? version.major > floor.major : version.minor >= floor.minor;
  return { ok: true, atLeast, version };
}

/** The items as a client of this version may see them: rankScore nulled below 1.55. */
export function rankScoresForApiVersion<T extends { rankScore: number | null }>(
  items: readonly T[],
  header: string | null | undefined,
): { ok: true; items: T[] } | Extract<ApiVersionCheck, { ok: false }> {
  const check = apiVersionAtLeast(header, RANK_SCORE_MIN_API_VERSION);
  if (!check.ok) return check;
  return { ok: true, items: check.atLeast ? [...items] : items.map((i) => ({ ...i, rankScore: null })) };
}
