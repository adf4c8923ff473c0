/** Badge colours per band; every pair clears WCAG AA contrast (4.5:1, colors.test.ts), unlike stock shields. */
import type { Band } from "./statement";

export interface BadgeColors {
  background: string;
  text: string;
  shadow: string;
}

const LIGHT_TEXT = "#fff";
const DARK_TEXT = "#1b1f23";

function pair(background: string): BadgeColors {
  const text = contrastRatio(background, LIGHT_TEXT) >= contrastRatio(background, DARK_TEXT) ? LIGHT_TEXT : DARK_TEXT;
  return { background, text, shadow: text === LIGHT_TEXT ? "#010101" : "#ccc" };
}

export const LABEL_COLORS: BadgeColors = pair("#555");
export const BAND_COLORS: Record<Band, BadgeColors> = {
  "Getting started": pair("#c4320a"),
  "Almost ready": pair("#e8b020"),
  Ready: pair("#2e7d32"),
  Excellent: pair("#44cc11"), // dark text keeps shields' brightgreen readable
};
export const UNSCORED_COLORS: BadgeColors = pair("#9ea7b3"); // neutral grey, dark text

const HEX = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

export function colorsFor(background: string): BadgeColors {
  if (!HEX.test(background)) throw new RangeError(`badge colour must be #rgb or #rrggbb, got ${JSON.stringify(background)}`);
  return pair(background.toLowerCase());
}

function channels(hex: string): [number, number, number] {
  const h = hex.slice(1);
  const full = h.length === 3 ? h.replace(/./g, (c) => c + c) : h;
  return [0, 2, 4].map((i) => parseInt(full.slice(i, i + 2), 16) / 255) as [number, number, number];
}

/** WCAG 2.x relative luminance. */
export function relativeLuminance(hex: string): number {
  const [r, g, b] = channels(hex).map((c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

export function contrastRatio(a: string, b: string): number {
  const la = relativeLuminance(a);
  const lb = relativeLuminance(b);
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}
