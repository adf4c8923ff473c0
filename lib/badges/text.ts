/**
 * Turning untrusted text (a listing name, a `?label=`) into something safe to *show*. Escaping is
 * the XML builder's job; this module decides what is visible:
 *  - bidi controls (U+202A–U+202E, U+2066–U+2069, LRM/RLM/ALM) are removed, so a name cannot reorder
 *    the score next to it ("Trojan Source" style spoofing of "96" into "69");
 *  - other invisible format and control characters (zero-width space, word joiner, BOM, soft hyphen,
 *    C0/C1 controls) are removed; ZWJ/ZWNJ stay, because emoji sequences and some scripts need them;
 *  - whitespace runs collapse to one space;
 *  - the result is cut to MAX_VISIBLE_CHARS user-perceived characters (grapheme clusters, so an
 *    emoji or an accented letter is never split), with an ellipsis marking the cut.
 */

export const MAX_VISIBLE_CHARS = 40;
export const ELLIPSIS = "\u2026";

// Bidi embeddings/overrides/isolates and marks, zero-width space and word joiners, BOM, soft hyphen, Mongolian
// vowel separator, interlinear annotation; then the C0 and C1 control ranges.
const INVISIBLE = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C\u200B\u2060-\u2064\uFEFF\u00AD\u180E\uFFF9-\uFFFB\u0000-\u0008\u000E-\u001F\u007F-\u0084\u0086-\u009F]/g;
// Lone surrogates cannot be encoded; drop them here too so width and truncation see real text.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const WHITESPACE = /[\s\u0009-\u000D\u0085\u2028\u2029]+/g;

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** Printable ASCII that needs no normalisation: the overwhelmingly common case, kept allocation-free. */
const SIMPLE = /^[\x21-\x7E]+(?: [\x21-\x7E]+)*$/;

export function visibleText(input: string, max: number = MAX_VISIBLE_CHARS): string {
  if (input.length <= max && SIMPLE.test(input)) return input;
  // Bound the work on absurd inputs before normalising; whatever is cut here would be cut anyway.
  const bounded = input.length > 16 * max ? input.slice(0, 16 * max) : input;
  const cleaned = bounded
    .normalize("NFC")
    .replace(INVISIBLE, "")
    .replace(LONE_SURROGATE, "")
    .replace(WHITESPACE, " ")
    .trim();
  if (cleaned.length <= max) return cleaned; // ≤ max UTF-16 units implies ≤ max graphemes
  // Take one grapheme more than allowed: that is how we know whether a cut is needed.
  const graphemes: string[] = [];
  for (const { segment } of segmenter.segment(cleaned)) {
    graphemes.push(segment);
    if (graphemes.length > max) break;
  }
  if (graphemes.length <= max) return cleaned;
  return graphemes.slice(0, max - 1).join("").trimEnd() + ELLIPSIS;
}
