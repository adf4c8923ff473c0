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

export function countAlnum(s: string): number {
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
