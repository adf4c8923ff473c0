/** Sentence relevance for router selection: OR over a task's words weighted by rarity (docs/SELECTION.md "Relevance"). */
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { rows, rowsWithSettings } from "@/lib/sql";
import { publicSql } from "@/lib/listings/visibility";
import { SPELLINGS, SYNONYMS, SYNONYM_WEIGHT } from "./synonyms";

/** Title (A), short description or category (B), description or endpoints (C). */
export const FIELD_WEIGHTS = { A: 1, B: 0.6, C: 0.35 } as const;
/** × word_similarity. */
export const TYPO_WEIGHT = 0.8;
export const TYPO_THRESHOLD = 0.45;
export const MIN_RELEVANCE = 0.25;
/** A word in more than this share of public listings scores but never retrieves… */
export const COMMON_SHARE = 0.4;
/** …once there are this many public listings. */
export const COMMON_MIN_LISTINGS = 20;
export const MAX_TASK_WORDS = 24;
const TYPO_MIN_LENGTH = 4;

export type WordMatch = "word" | "synonym" | "typo";

export interface MatchedWord {
  word: string;
  how: WordMatch;
}

export interface Term {
  word: string;
  lexeme: string;
  /** Its spellings, the lexeme included. */
  same: string[];
  synonyms: string[];
  df: number;
  idf: number;
  common: boolean;
}

/** A word of digits only (with any separators the word pattern keeps): a value, never a term. */
const NUMERAL = /^\p{N}+(?:['’-]\p{N}+)*$/u;

/** Words that only number what follows them: "report number 854", "order no 12". */
const NUMBERING = new Set(["number", "no", "nr", "num"]);
/** Before these, "number" is the thing itself ("the number 42"), not a label. */
const DETERMINERS = new Set(["the", "a", "an", "this", "that", "my", "your", "our", "their", "its", "his", "her", "any", "each", "every", "some", "of", "is", "what", "which"]);

/**
 * The task's words, numerals left out: a number in a task is its input ("the address at 52.236,
 * 13.40", "order 420"), and a listing's numbers are counts and versions ("40 languages"); one matching
 * the other says nothing about the service. Words with letters ("mp3", "ipv6", "x402") stay. So does
 * the label before a numeral: "number" in "friend number 420" or "phone number +1 555" numbers the
 * input, and the word before it ("phone") says what kind it is.
 */
export function taskWords(task: string): string[] {
  const all = task.toLowerCase().match(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu) ?? [];
  const label = (w: string, i: number) => NUMBERING.has(w) && i > 0 && NUMERAL.test(all[i + 1] ?? "") && !NUMERAL.test(all[i - 1]) && !DETERMINERS.has(all[i - 1]);
  const words = all.filter((w, i) => !NUMERAL.test(w) && !label(w, i));
  return [...new Set(words)].slice(0, MAX_TASK_WORDS);
}

/** BM25's idf: positive, larger for rarer words. */
export function idf(df: number, n: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

export function tsqueryOf(lexemes: readonly string[], weight?: "A" | "B" | "C"): string {
  return lexemes.map((l) => `'${l.replace(/\\/g, "\\\\").replace(/'/g, "''")}'${weight ? `:${weight}` : ""}`).join(" | ");
}

/** The `english` configuration is fixed: each word is stemmed once per process. */
const stemCache = new Map<string, string[]>();
const STEM_CACHE_MAX = 50_000;

/** By "listing_search_stats" generation, which a listing_search write moves: a current entry is exact. */
/** `titled`: for a word no listing has, how many public titles it is a near spelling of. */
const dfCache = { generation: "", df: new Map<string, number>(), titled: new Map<string, number>() };
const DF_CACHE_MAX = 20_000;

async function stemsAndStats(client: PrismaClient, words: readonly string[]): Promise<{ stemmed: Map<string, string[]>; n: number; generation: string }> {
  const missing = words.filter((w) => !stemCache.has(w));
  const [r] = await rows<{ words: string[] | null; lexemes: string[][] | null; n: number; generation: string }>(
    client,
    `SELECT (SELECT array_agg(w ORDER BY i) FROM unnest($1::text[]) WITH ORDINALITY u(w, i)) AS words,
            (SELECT jsonb_agg(to_jsonb(tsvector_to_array(to_tsvector('english', w))) ORDER BY i) FROM unnest($1::text[]) WITH ORDINALITY u(w, i)) AS lexemes,
            s."publicListings" AS n, s."generation"::text AS generation
       FROM "listing_search_stats" s WHERE s."id" = 1`,
    missing,
  );
  if (stemCache.size + missing.length > STEM_CACHE_MAX) stemCache.clear();
  (r.words ?? []).forEach((w, i) => stemCache.set(w, r.lexemes![i]));
  return { stemmed: new Map(words.map((w) => [w, stemCache.get(w) ?? []])), n: Number(r.n), generation: r.generation };
}

/** Each distinct lexeme with spellings, synonyms, df and idf; words no public listing has (even as a title typo) are dropped. */
export async function readTerms(client: PrismaClient, task: string): Promise<Term[]> {
  const words = taskWords(task);
  if (words.length === 0) return [];
  const groupWords = [...SPELLINGS, ...SYNONYMS].flat();
  const stats = await stemsAndStats(client, [...words, ...groupWords]);
  const lex = (w: string) => stats.stemmed.get(w) ?? [];
  const spellings = SPELLINGS.map((g) => g.flatMap(lex));
  const synonyms = SYNONYMS.map((g) => g.flatMap(lex));

  const draft: Omit<Term, "df" | "idf" | "common">[] = [];
  const seen = new Set<string>();
  for (const word of words) {
    for (const lexeme of lex(word)) {
      if (seen.has(lexeme)) continue;
      seen.add(lexeme);
      const same = new Set([lexeme, ...spellings.filter((g) => g.includes(lexeme)).flat()]);
      const syn = new Set(synonyms.filter((g) => [...same].some((s) => g.includes(s))).flat().filter((s) => !same.has(s)));
      draft.push({ word, lexeme, same: [...same], synonyms: [...syn] });
    }
  }
  if (draft.length === 0) return [];
  const queries = draft.map((t) => tsqueryOf([...t.same, ...t.synonyms]));
  let n = stats.n;
  if (dfCache.generation !== stats.generation || dfCache.df.size > DF_CACHE_MAX) Object.assign(dfCache, { generation: stats.generation, df: new Map(), titled: new Map() });
  const uncounted = draft.flatMap((t, i) => (dfCache.df.has(queries[i]) && (dfCache.df.get(queries[i])! > 0 || dfCache.titled.has(t.word)) ? [] : [i]));
  if (uncounted.length > 0) {
    // In the snapshot that reads the generation, so they are stored together.
    const [counts] = await rowsWithSettings<{ n: number; generation: string; dfs: number[]; titled: number[] }>(
      client,
      { "pg_trgm.word_similarity_threshold": String(TYPO_THRESHOLD) },
      `WITH d AS (SELECT q.i, q.w, (SELECT count(*) FROM "listing_search" l WHERE ${publicSql("l")} AND l."searchVector" @@ q.q::tsquery)::int AS df
                    FROM unnest($1::text[], $2::text[]) WITH ORDINALITY q(q, w, i))
       SELECT s."publicListings" AS n, s."generation"::text AS generation,
              ARRAY(SELECT d.df FROM d ORDER BY d.i) AS dfs,
              ARRAY(SELECT CASE WHEN d.df = 0 AND length(d.w) >= ${TYPO_MIN_LENGTH}
                                THEN (SELECT count(*) FROM "listing_search" l WHERE ${publicSql("l")} AND d.w <% l."title")::int ELSE 0 END
                      FROM d ORDER BY d.i) AS titled
         FROM "listing_search_stats" s WHERE s."id" = 1`,
      uncounted.map((i) => queries[i]),
      uncounted.map((i) => draft[i].word),
    );
    if (counts.generation !== dfCache.generation) Object.assign(dfCache, { generation: counts.generation, df: new Map(), titled: new Map() });
    n = Number(counts.n);
    const fresh = new Map<number, { df: number; titled: number }>();
    uncounted.forEach((i, k) => {
      const df = Number(counts.dfs[k]);
      fresh.set(i, { df, titled: Number(counts.titled[k]) });
      dfCache.df.set(queries[i], df);
      if (df === 0) dfCache.titled.set(draft[i].word, Number(counts.titled[k]));
    });
    if (counts.generation !== stats.generation) {
      // A write landed between the statements: read again at the newer generation.
      return draft.length === uncounted.length ? termsOf(draft, n, (i) => fresh.get(i)!) : readTerms(client, task);
    }
    return termsOf(draft, n, (i) => fresh.get(i) ?? { df: dfCache.df.get(queries[i])!, titled: dfCache.titled.get(draft[i].word) ?? 0 });
  }
  return termsOf(draft, n, (i) => ({ df: dfCache.df.get(queries[i])!, titled: dfCache.titled.get(draft[i].word) ?? 0 }));
}

/**
 * A word no listing has counts as often as the titles it is a near spelling of: a misspelt task word
 * is as rare as the word meant, and a word near a brand used by many sellers is as common as the brand.
 */
function termsOf(draft: Omit<Term, "df" | "idf" | "common">[], n: number, count: (i: number) => { df: number; titled: number }): Term[] {
  return draft.flatMap((t, i) => {
    const { df: exact, titled } = count(i);
    const df = exact > 0 ? exact : titled;
    if (df === 0) return [];
    return [{ ...t, df, idf: idf(df, n), common: n >= COMMON_MIN_LISTINGS && df > COMMON_SHARE * n }];
  });
}

export const typoEligible = (t: Term) => !t.common && t.word.length >= TYPO_MIN_LENGTH;

/**
 * The terms whose listings are read: the uncommon ones (all when every term is common), and of them only
 * the rarest a listing must hold one of to reach `floor`. A term scores at most 1, so a listing holding
 * none of them scores at most the others' Σ idf ÷ Σ idf, below the floor: reading it cannot change an
 * answer (docs/SELECTION.md "Speed").
 */
export function retrievalTerms(terms: readonly Term[], floor: number): Term[] {
  const retrieving = terms.some((t) => !t.common) ? terms.filter((t) => !t.common) : [...terms];
  if (!(floor > 0)) return retrieving;
  const total = terms.reduce((s, t) => s + t.idf, 0);
  // A margin below the floor, so float rounding in the statement's sum never meets a pruned listing.
  const bar = floor * total * (1 - 1e-9);
  let rest = total;
  const kept: Term[] = [];
  for (const t of [...retrieving].sort((a, b) => b.idf - a.idf)) {
    if (rest < bar) break;
    kept.push(t);
    rest -= t.idf;
  }
  return terms.filter((t) => kept.includes(t));
}

/**
 * Over `listing_search` `l`: the retrieval condition, per listing relevance Σ idf·match ÷ Σ idf (`lateral`,
 * alias `s`), and for the rows kept the words matched (`matched(alias)`, alias `mw`): read only for the
 * rows an answer returns, not for every retrieved one (docs/SELECTION.md "Speed").
 */
export function sentenceScoreSql(terms: readonly Term[], params: unknown[], floor = 0): { retrieve: string; lateral: string; matched: (alias: string) => string; with: string } {
  const p = (v: unknown) => `$${params.push(v)}`;
  const retrieving = retrievalTerms(terms, floor);
  const retrieve = [
    `l."searchVector" @@ ${p(tsqueryOf(retrieving.flatMap((t) => [...t.same, ...t.synonyms])))}::tsquery`,
    ...retrieving.filter(typoEligible).map((t) => `${p(t.word)} <% l."title"`),
  ].join(" OR ");
  const spec = terms.map((t, ord) => ({
    ord,
    word: t.word,
    idf: t.idf,
    typo: typoEligible(t),
    a: tsqueryOf(t.same, "A"),
    b: tsqueryOf(t.same, "B"),
    c: tsqueryOf(t.same, "C"),
    sa: t.synonyms.length ? tsqueryOf(t.synonyms, "A") : null,
    sb: t.synonyms.length ? tsqueryOf(t.synonyms, "B") : null,
    sc: t.synonyms.length ? tsqueryOf(t.synonyms, "C") : null,
  }));
  const total = p(terms.reduce((s, t) => s + t.idf, 0));
  // Parsed once (a materialized CTE), not per retrieved row.
  const spec_ = `spec AS MATERIALIZED (
      SELECT t.ord, t.word, t.idf, t.typo, t.a::tsquery AS a, t.b::tsquery AS b, t.c::tsquery AS c, t.sa::tsquery AS sa, t.sb::tsquery AS sb, t.sc::tsquery AS sc
        FROM jsonb_to_recordset(${p(JSON.stringify(spec))}::jsonb)
             AS t(ord int, word text, idf float8, typo boolean, a text, b text, c text, sa text, sb text, sc text))`;
  // One term against listing `l`: its word, synonym and near-spelling scores (x), the best and how (m).
  const scores = (l: string) => {
    const field = (a: string, b: string, c: string) =>
      `CASE WHEN ${l}."searchVector" @@ ${a} THEN ${FIELD_WEIGHTS.A} WHEN ${l}."searchVector" @@ ${b} THEN ${FIELD_WEIGHTS.B} WHEN ${l}."searchVector" @@ ${c} THEN ${FIELD_WEIGHTS.C} ELSE 0 END`;
    return `FROM spec t
        CROSS JOIN LATERAL (SELECT ${field("t.a", "t.b", "t.c")} AS w,
                                   CASE WHEN t.sa IS NULL THEN 0 ELSE ${SYNONYM_WEIGHT} * (${field("t.sa", "t.sb", "t.sc")}) END AS s,
                                   CASE WHEN t.typo AND t.word <% ${l}."title" THEN ${TYPO_WEIGHT} * word_similarity(t.word, ${l}."title") ELSE 0 END AS f) x
        CROSS JOIN LATERAL (SELECT GREATEST(x.w, x.s, x.f)::float8 AS score,
                                   CASE WHEN x.w >= x.s AND x.w >= x.f THEN 'word' WHEN x.s >= x.f THEN 'synonym' ELSE 'typo' END AS how) m`;
  };
  const lateral = `LATERAL (SELECT LEAST(1, sum(t.idf * m.score) / ${total}::float8)::float8 AS relevance ${scores("l")}) s`;
  const matched = (l: string) =>
    `LATERAL (SELECT COALESCE(jsonb_agg(jsonb_build_object('word', t.word, 'how', m.how) ORDER BY t.ord) FILTER (WHERE m.score > 0), '[]'::jsonb) AS matched ${scores(l)}) mw`;
  return { retrieve, lateral, matched, with: spec_ };
}
