/**
 * Untrusted text made safe to show: bidi and invisible characters removed (no "96" spoofed into "69";
 * ZWJ/ZWNJ stay), whitespace collapsed, cut to MAX_VISIBLE_CHARS graphemes. Escaping is xml.ts's job.
 */

export const MAX_VISIBLE_CHARS = 40;
export const ELLIPSIS = "\u2026";

// Bidi controls and marks, zero-width and format characters, BOM, soft hyphen; then C0 and C1 controls.
const INVISIBLE = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C\u200B\u2060-\u2064\uFEFF\u00AD\u180E\uFFF9-\uFFFB\u0000-\u0008\u000E-\u001F\u007F-\u0084\u0086-\u009F]/g;
// Lone surrogates cannot be encoded.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const WHITESPACE = /[\s\u0009-\u000D\u0085\u2028\u2029]+/g;

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** Printable ASCII needs no normalisation: the common case, allocation-free. */
const SIMPLE = /^[\x21-\x7E]+(?: [\x21-\x7E]+)*$/;

export function visibleText(input: string, max: number = MAX_VISIBLE_CHARS): string {
  if (input.length <= max && SIMPLE.test(input)) return input;
  const bounded = input.length > 16 * max ? input.slice(0, 16 * max) : input;
  const cleaned = bounded
    .normalize("NFC")
    .replace(INVISIBLE, "")
    .replace(LONE_SURROGATE, "")
    .replace(WHITESPACE, " ")
    .trim();
  if (cleaned.length <= max) return cleaned;
  // One grapheme more than allowed tells whether a cut is needed.
  const graphemes: string[] = [];
  for (const { segment } of segmenter.segment(cleaned)) {
    graphemes.push(segment);
    if (graphemes.length > max) break;
  }
  if (graphemes.length <= max) return cleaned;
  return graphemes.slice(0, max - 1).join("").trimEnd() + ELLIPSIS;
}
