/** What a badge's `?label=` may say: never something that passes for a score or a band (LABEL_RULE; docs/BADGES.md "The label rule"). */
import { BANDS } from "./statement";
import { ELLIPSIS, MAX_VISIBLE_CHARS } from "./text";

export const DEFAULT_LABEL = "readiness";

export const LABEL_RULE =
  "ASCII letters in words joined by single spaces or hyphens, at most 40 characters; no digits or symbols, no band name (Getting started, Almost ready, Ready, Excellent) and no word of digit-like letters (O, I, l, Z, S, B)";

const SHAPE = /^[A-Za-z]+(?:[ -][A-Za-z]+)*(?: ?\u2026)?$/;
const DIGIT_LIKE_WORD = /^[OoIlZSB]+$/;

/** Null when `label` may be shown next to a score; else why not. */
export function labelRuleError(label: string): string | null {
  if (label.length === 0) return "the label is empty";
  if ([...label].length > MAX_VISIBLE_CHARS) return `the label is longer than ${MAX_VISIBLE_CHARS} characters`;
  if (!SHAPE.test(label)) return "the label may hold only ASCII letters in words joined by single spaces or hyphens (no digits or symbols)";
  const lower = label.toLowerCase();
  const band = BANDS.find((b) => lower.includes(b.toLowerCase()));
  if (band) return `the label may not contain the band name "${band}"`;
  const word = label.replace(ELLIPSIS, "").split(/[ -]/).find((w) => DIGIT_LIKE_WORD.test(w));
  if (word !== undefined) return `the label word "${word}" reads as digits`;
  return null;
}
