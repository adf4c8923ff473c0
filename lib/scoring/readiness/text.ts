/** Text and URL predicates the rules share; regexes are module constants (100,000 listings a run). */

const NON_ALNUM = /[^\p{L}\p{N}]+/gu;
const ALNUM = /[\p{L}\p{N}]/gu;
const TRAILING_NUMBERS = /(?: \d+)+$/;
const HOST_OF_URL = /^[a-z][a-z0-9+.-]*:\/\/(?:[^/?#@]*@)?([^/?#:]+)/i;
/** Absolute https, a host with a dot or brackets, no whitespace. */
const HTTPS_URL = /^https:\/\/[^\s/?#@]+\.[^\s/?#@]+(?:[/?#]\S*)?$/i;
const HTTP_URL = /^https?:\/\/[^\s/?#@]+\.[^\s/?#@]+(?:[/?#]\S*)?$/i;

/** Lower-case, punctuation and whitespace to single spaces, trimmed. */
export function normaliseWords(s: string): string {
  return s.toLowerCase().replace(NON_ALNUM, " ").trim();
}

/** "Test API 2" reads as "test api". */
export function normaliseTitle(s: string): string {
  return normaliseWords(s).replace(TRAILING_NUMBERS, "");
}

/** Letters and digits, counted in code points. */
export function countAlnum(s: string): number {
  const n = asciiAlnum(s);
  return n >= 0 ? n : countAlnumUnicode(s);
}

/** Letters and digits of an all-ASCII string; -1 when it holds anything else. */
function asciiAlnum(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const ch = s.charCodeAt(i);
    if (ch >= 128) return -1;
    if ((ch >= 48 && ch <= 57) || (ch >= 65 && ch <= 90) || (ch >= 97 && ch <= 122)) n++;
  }
  return n;
}

/** normaliseWords(a) === normaliseWords(b), without normalising when an ASCII count already tells them apart. */
export function sameWords(a: string, b: string): boolean {
  const x = typeof a === "string" && typeof b === "string" ? asciiAlnum(a) : -1;
  if (x >= 0) {
    const y = asciiAlnum(b);
    if (y >= 0 && x !== y) return false;
  }
  return normaliseWords(a) === normaliseWords(b);
}

/**
 * normaliseWords(s) === normalised, for an already normalised right side. Normalising keeps every
 * letter and digit of an ASCII string, so two ASCII strings with different counts of them differ
 * without normalising either.
 */
export function wordsEqual(s: string, normalised: string): boolean {
  const a = typeof s === "string" && typeof normalised === "string" ? asciiAlnum(s) : -1;
  if (a >= 0) {
    const b = asciiAlnum(normalised);
    if (b >= 0 && a !== b) return false;
  }
  return normaliseWords(s) === normalised;
}

function countAlnumUnicode(s: string): number {
  const m = s.match(ALNUM);
  return m ? m.length : 0;
}

export function hostOf(url: string): string | null {
  const m = HOST_OF_URL.exec(url);
  return m ? m[1].toLowerCase() : null;
}

export function isHttpsUrl(s: string | null | undefined): boolean {
  return typeof s === "string" && HTTPS_URL.test(s);
}

export function isHttpUrl(s: string | null | undefined): boolean {
  return typeof s === "string" && HTTP_URL.test(s);
}

export function hasText(s: string | null | undefined): boolean {
  return typeof s === "string" && s.trim().length > 0;
}

export function trimmedLength(s: string | null | undefined): number {
  return typeof s === "string" ? s.trim().length : 0;
}
