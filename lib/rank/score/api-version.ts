/** `Catalog-Api-Version`: clients below 1.55 get `rankScore: null`; a malformed header is refused (docs/RANK.md "API version"). */
import { CATALOG_API_VERSION_HEADER, RANK_SCORE_MIN_API_VERSION } from "./constants";

export interface ApiVersion {
  major: number;
  minor: number;
}

export type ApiVersionCheck =
  | { ok: true; atLeast: boolean; /** Null when absent (treated as current). */ version: ApiVersion | null }
  | { ok: false; header: typeof CATALOG_API_VERSION_HEADER; value: string; message: string };

const VERSION = /^(0|[1-9]\d{0,5})\.(0|[1-9]\d{0,5})$/;

export function parseApiVersion(value: string): ApiVersion | null {
  const m = VERSION.exec(value.trim());
  return m ? { major: Number(m[1]), minor: Number(m[2]) } : null;
}

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

export function rankScoresForApiVersion<T extends { rankScore: number | null }>(
  items: readonly T[],
  header: string | null | undefined,
): { ok: true; items: T[] } | Extract<ApiVersionCheck, { ok: false }> {
  const check = apiVersionAtLeast(header, RANK_SCORE_MIN_API_VERSION);
  if (!check.ok) return check;
  return { ok: true, items: check.atLeast ? [...items] : items.map((i) => ({ ...i, rankScore: null })) };
}
