/**
 * Direction (docs/SELECTION.md "Direction"): a task names what it wants back ("the coordinates of …"), a
 * listing what it takes and returns ("addresses to coordinates", "coordinates in, address out"). One that
 * takes what the task asks for and never returns it reads the other way: relevance × REVERSED_FACTOR.
 */
export const REVERSED_FACTOR = 0.6;
/** Content words kept on each side of a marker. */
const SIDE_WORDS = 4;

const FUNCTION_WORDS = new Set(
  ("a an the and or of for to into in out on at by with from as is are be was were it its this that these those " +
    "my your our their me us you i we they what which who whose how where when please can could would will " +
    "some any each every one all back then than also just only get give find look up turn convert return returns send").split(" "),
);
/** Where a side ends: the next clause's words say something else. */
const SIDE_END = new Set(["for", "with", "by", "from", "in", "on", "at", "of", "using", "via", "per", "is", "are"]);
const ARROW = new Set(["to", "into", "->", "→"]);
/** "an API to summarise …", "I want to …": after these, "to" starts a verb, not a destination. */
const INFINITIVE_AFTER = new Set(["api", "apis", "service", "tool", "need", "needs", "want", "wants", "way", "how", "able", "like", "trying", "order", "going", "have", "has", "used", "me", "us", "them", "agent"]);
const isArrow = (ts: readonly string[], i: number) => ARROW.has(ts[i]) && !(ts[i] === "to" && (i === 0 || INFINITIVE_AFTER.has(ts[i - 1])));

/** Plurals folded: "addresses" → "address", "coordinates" → "coordinate". */
export function fold(word: string): string {
  const w = word.toLowerCase();
  if (w.length > 4 && w.endsWith("sses")) return w.slice(0, -2);
  if (w.length > 4 && w.endsWith("ies")) return `${w.slice(0, -3)}y`;
  if (w.length > 3 && w.endsWith("s") && !w.endsWith("ss") && !w.endsWith("us")) return w.slice(0, -1);
  return w;
}

/** Words and arrows, in order; numerals are values and end a side like punctuation. */
function tokens(clause: string): string[] {
  return clause.toLowerCase().match(/->|→|[\p{L}][\p{L}\p{N}'’-]*|\p{N}[\p{N}.,]*/gu) ?? [];
}

const isContent = (t: string) => /^\p{L}/u.test(t) && !FUNCTION_WORDS.has(t) && !ARROW.has(t);

/** Up to SIDE_WORDS content words walking from `from` by `step`, stopping at a side's end or a value. */
function side(ts: readonly string[], from: number, step: 1 | -1): string[] {
  const out: string[] = [];
  for (let i = from; i >= 0 && i < ts.length && out.length < SIDE_WORDS; i += step) {
    const t = ts[i];
    if (/^\p{N}/u.test(t) || ARROW.has(t)) break;
    if (step === 1 && SIDE_END.has(t) && out.length > 0) break;
    if (step === -1 && SIDE_END.has(t)) break;
    if (isContent(t)) out.push(fold(t));
  }
  return out;
}

const clausesOf = (text: string) => text.split(/[.;:!?\n]+|,\s*(?:or|and)\s+|\s+or\s+/u).filter((c) => c.trim().length > 0);

export interface ListingDirection {
  takes: Set<string>;
  returns: Set<string>;
}

/** What a listing's text says it takes and returns ("A to B", "A into B", "A in, B out"). */
export function listingDirection(text: string): ListingDirection {
  const takes = new Set<string>();
  const returns = new Set<string>();
  for (const clause of clausesOf(text)) {
    const inOut = /^(.*?)\bin,\s*(.*?)\bout\b/iu.exec(clause);
    if (inOut) {
      const taken = tokens(inOut[1]);
      side(taken, taken.length - 1, -1).forEach((w) => takes.add(w));
      tokens(inOut[2]).filter(isContent).slice(0, SIDE_WORDS).forEach((w) => returns.add(fold(w)));
      continue;
    }
    const ts = tokens(clause);
    ts.forEach((_, i) => {
      if (!isArrow(ts, i)) return;
      const before = side(ts, i - 1, -1);
      const after = side(ts, i + 1, 1);
      if (before.length === 0 || after.length === 0) return;
      before.forEach((w) => takes.add(w));
      after.forEach((w) => returns.add(w));
    });
  }
  return { takes, returns };
}

/**
 * What a task asks for: the words after its last "to"/"into" ("… to coordinates"), else the object of
 * "what is/are the …", "which …", "find/get/give me/look up the …" up to "of", "at", "for" or a verb.
 */
export function askedFor(task: string): Set<string> {
  for (const clause of clausesOf(task)) {
    const ts = tokens(clause);
    for (let i = ts.length - 1; i >= 0; i--) {
      if (!isArrow(ts, i)) continue;
      const after = side(ts, i + 1, 1);
      if (after.length > 0) return new Set(after);
    }
    const head = /^\s*(?:what\s+(?:is|are)\s+|which\s+|find\s+|get\s+|give\s+me\s+|look\s+up\s+|return\s+)(?:the\s+|an?\s+)?(.*)$/iu.exec(clause);
    if (head) {
      // Its object: content words up to the first side's end or value (arrows are not content).
      const words: string[] = [];
      for (const t of tokens(head[1])) {
        if (/^\p{N}/u.test(t) || SIDE_END.has(t) || words.length >= SIDE_WORDS) break;
        if (isContent(t)) words.push(fold(t));
      }
      if (words.length > 0) return new Set(words);
    }
  }
  return new Set();
}

/** True when the listing takes what the task asks for and says nowhere that it returns it. */
export function readsTheOtherWay(asked: ReadonlySet<string>, listing: ListingDirection): boolean {
  for (const w of asked) if (listing.returns.has(w)) return false;
  for (const w of asked) if (listing.takes.has(w)) return true;
  return false;
}
