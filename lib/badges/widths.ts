/** Deterministic text widths from anafanafo's Verdana tables (shields.io's data); unlisted characters count as "m". */
import { VERDANA_10, VERDANA_10_BOLD, VERDANA_10_BOLD_EM, VERDANA_10_EM, VERDANA_11, VERDANA_11_EM } from "./widths-data";

export type BadgeFont = "11px Verdana" | "10px Verdana" | "bold 10px Verdana";

const DENSE_LIMIT = 0x250;

interface Table {
  dense: Int32Array; // width×100 below DENSE_LIMIT, -1 when unlisted
  ranges: readonly number[]; // flat [lo, hi, w100] triples, sorted, for everything above
  em: number;
  cache: Map<string, number>;
}

function table(ranges: readonly number[], em: number): Table {
  const dense = new Int32Array(DENSE_LIMIT).fill(-1);
  for (let i = 0; i < ranges.length; i += 3) {
    for (let cp = ranges[i]; cp <= ranges[i + 1] && cp < DENSE_LIMIT; cp++) dense[cp] = ranges[i + 2];
  }
  return { dense, ranges, em, cache: new Map() };
}

const TABLES: Record<BadgeFont, Table> = {
  "11px Verdana": table(VERDANA_11, VERDANA_11_EM),
  "10px Verdana": table(VERDANA_10, VERDANA_10_EM),
  "bold 10px Verdana": table(VERDANA_10_BOLD, VERDANA_10_BOLD_EM),
};

function lookup(t: Table, cp: number): number {
  if (cp < 0x20 || cp === 0x7f) return 0;
  if (cp < DENSE_LIMIT) {
    const w = t.dense[cp];
    return w < 0 ? t.em : w;
  }
  const r = t.ranges;
  let lo = 0;
  let hi = r.length / 3 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (cp < r[mid * 3]) hi = mid - 1;
    else if (cp > r[mid * 3 + 1]) lo = mid + 1;
    else return r[mid * 3 + 2];
  }
  return t.em;
}

// Widths memoised per font; bounded by clearing.
const CACHE_LIMIT = 4096;

/** Width in hundredths of a pixel (an exact integer sum). */
export function textWidth100(text: string, font: BadgeFont): number {
  const t = TABLES[font];
  const hit = t.cache.get(text);
  if (hit !== undefined) return hit;
  let sum = 0;
  for (let i = 0; i < text.length; i++) {
    let cp = text.charCodeAt(i);
    if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < text.length) {
      const lo = text.charCodeAt(i + 1);
      if (lo >= 0xdc00 && lo <= 0xdfff) {
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        i++;
      }
    }
    sum += lookup(t, cp);
  }
  if (t.cache.size >= CACHE_LIMIT) t.cache.clear();
  t.cache.set(text, sum);
  return sum;
}

export function textWidth(text: string, font: BadgeFont): number {
  return Math.floor(textWidth100(text, font) / 100);
}
