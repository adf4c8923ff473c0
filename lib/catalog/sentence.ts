/**
 * Sentence relevance for router selection (docs/SELECTION.md "Relevance"): a task written as a
 * sentence, matched word by word with OR semantics over the listings' weighted full-text vector
 * (stemmed by PostgreSQL's `english` configuration, stop words dropped), spellings and synonyms
 * (lib/catalog/synonyms.ts) and pg_trgm typos on the title; each word weighted by its rarity.
 */
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { rows, rowsWithSettings } from "@/lib/sql";
import { publicSql } from "@/lib/listings/visibility";
import { SPELLINGS, SYNONYMS, SYNONYM_WEIGHT } from "./synonyms";

/** Where a word is found in a listing: title (A), short description or category (B), description or endpoints (C). */
export const FIELD_WEIGHTS = { A: 1, B: 0.6, C: 0.35 } as const;
/** A typo found in the title counts this much × its word_similarity. */
export const TYPO_WEIGHT = 0.8;
/** word_similarity floor for a task word to match a title by trigram (as lib/catalog/search.ts). */
export const TYPO_THRESHOLD = 0.45;
/** Below this relevance a listing is not a match for the task. */
export const MIN_RELEVANCE = 0.25;
/** A word in more than this share of the public listings is common: it scores but never retrieves. */
export const COMMON_SHARE = 0.4;
/** …once the catalog has at least this many public listings (below, shares say little). */
export const COMMON_MIN_LISTINGS = 20;
/** Words of a task read at most (the rest are ignored). */
export const MAX_TASK_WORDS = 24;
/** Typo matching only for words at least this long. */
const TYPO_MIN_LENGTH = 4;

export type WordMatch = "word" | "synonym" | "typo";

/** One task word as matched: the word as the caller wrote it and how it matched. */
export interface MatchedWord {
  word: string;
  how: WordMatch;
}

export interface Term {
  word: string;
  lexeme: string;
  /** Lexemes counting as the word itself (its spellings), the lexeme included. */
  same: string[];
  /** Lexemes counting at SYNONYM_WEIGHT. */
  synonyms: string[];
  df: number;
  idf: number;
  common: boolean;
}

/** The task's words in order, lower-cased, each once. */
export function taskWords(task: string): string[] {
  const words = task.toLowerCase().match(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu) ?? [];
  return [...new Set(words)].slice(0, MAX_TASK_WORDS);
}

/** BM25's inverse document frequency: positive, larger for rarer words. */
export function idf(df: number, n: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/** A tsquery (text form) OR-ing lexemes, each restricted to `weight` when given. */
export function tsqueryOf(lexemes: readonly string[], weight?: "A" | "B" | "C"): string {
  return lexemes.map((l) => `'${l.replace(/\\/g, "\\\\").replace(/'/g, "''")}'${weight ? `:${weight}` : ""}`).join(" | ");
}

async function stems(client: PrismaClient, words: readonly string[]): Promise<Map<string, string[]>> {
  const rs = await rows<{ word: string; lexemes: string[] }>(
    client,
    `SELECT w AS word, tsvector_to_array(to_tsvector('english', w)) AS lexemes FROM unnest($1::text[]) w`,
    [...words],
  );
  return new Map(rs.map((r) => [r.word, r.lexemes]));
}

/**
 * The task's terms: each distinct lexeme of its words (stop words have none), with its spellings,
 * synonyms, document frequency among the public listings and idf. One statement stems, one counts.
 * A word no public listing has, even as a typo of a title, says nothing about any listing: it is
 * dropped rather than counted against every match.
 */
export async function readTerms(client: PrismaClient, task: string): Promise<Term[]> {
  const words = taskWords(task);
  if (words.length === 0) return [];
  const groupWords = [...SPELLINGS, ...SYNONYMS].flat();
  const stemmed = await stems(client, [...words, ...groupWords]);
  const lex = (w: string) => stemmed.get(w) ?? [];
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
  const [counts] = await rowsWithSettings<{ n: number; dfs: number[]; titled: number[] }>(
    client,
    { "pg_trgm.word_similarity_threshold": String(TYPO_THRESHOLD) },
    `SELECT (SELECT count(*) FROM "listing_search" l WHERE ${publicSql("l")})::int AS n,
            ARRAY(SELECT (SELECT count(*) FROM "listing_search" l WHERE ${publicSql("l")} AND l."searchVector" @@ q.q::tsquery)::int
                    FROM unnest($1::text[]) WITH ORDINALITY q(q, i) ORDER BY q.i) AS dfs,
            ARRAY(SELECT (length(w.w) >= ${TYPO_MIN_LENGTH} AND EXISTS (SELECT 1 FROM "listing_search" l WHERE ${publicSql("l")} AND w.w <% l."title"))::int
                    FROM unnest($2::text[]) WITH ORDINALITY w(w, i) ORDER BY w.i) AS titled`,
    draft.map((t) => tsqueryOf([...t.same, ...t.synonyms])),
    draft.map((t) => t.word),
  );
  const n = Number(counts.n);
  return draft.flatMap((t, i) => {
    const df = Number(counts.dfs[i]);
    if (df === 0 && Number(counts.titled[i]) === 0) return [];
    return [{ ...t, df, idf: idf(df, n), common: n >= COMMON_MIN_LISTINGS && df > COMMON_SHARE * n }];
  });
}

export const typoEligible = (t: Term) => !t.common && t.word.length >= TYPO_MIN_LENGTH;

/**
 * The ranking statement's pieces over `listing_search` alias `l`: the retrieval condition (any
 * uncommon term's lexemes in the vector, or an eligible word close to the title; every term when
 * all are common) and, per listing, the relevance Σ idf·match ÷ Σ idf and the words matched.
 */
export function sentenceScoreSql(terms: readonly Term[], params: unknown[]): { retrieve: string; lateral: string } {
  const p = (v: unknown) => `$${params.push(v)}`;
  const retrieving = terms.some((t) => !t.common) ? terms.filter((t) => !t.common) : terms;
  const retrieve = [
    `l."searchVector" @@ ${p(tsqueryOf(retrieving.flatMap((t) => [...t.same, ...t.synonyms])))}::tsquery`,
    ...terms.filter(typoEligible).map((t) => `${p(t.word)} <% l."title"`),
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
  const total = terms.reduce((s, t) => s + t.idf, 0);
  const field = (a: string, b: string, c: string) =>
    `CASE WHEN l."searchVector" @@ ${a}::tsquery THEN ${FIELD_WEIGHTS.A} WHEN l."searchVector" @@ ${b}::tsquery THEN ${FIELD_WEIGHTS.B} WHEN l."searchVector" @@ ${c}::tsquery THEN ${FIELD_WEIGHTS.C} ELSE 0 END`;
  const lateral = `LATERAL (
      SELECT (sum(t.idf * m.score) / ${p(total)}::float8)::float8 AS relevance,
             COALESCE(jsonb_agg(jsonb_build_object('word', t.word, 'how', m.how) ORDER BY t.ord) FILTER (WHERE m.score > 0), '[]'::jsonb) AS matched
        FROM jsonb_to_recordset(${p(JSON.stringify(spec))}::jsonb)
             AS t(ord int, word text, idf float8, typo boolean, a text, b text, c text, sa text, sb text, sc text)
        CROSS JOIN LATERAL (SELECT ${field("t.a", "t.b", "t.c")} AS w,
                                   CASE WHEN t.sa IS NULL THEN 0 ELSE ${SYNONYM_WEIGHT} * (${field("t.sa", "t.sb", "t.sc")}) END AS s,
                                   CASE WHEN t.typo AND t.word <% l."title" THEN ${TYPO_WEIGHT} * word_similarity(t.word, l."title") ELSE 0 END AS f) x
        CROSS JOIN LATERAL (SELECT GREATEST(x.w, x.s, x.f)::float8 AS score,
                                   CASE WHEN x.w >= x.s AND x.w >= x.f THEN 'word' WHEN x.s >= x.f THEN 'synonym' ELSE 'typo' END AS how) m
    ) s`;
  return { retrieve, lateral };
}
