/** Router selection maths: relevance × (1 + 0.25·q), q = rankScore ÷ the set's best; rank only breaks near-ties (docs/SELECTION.md). */
import { ROUTER_RANK_WEIGHT } from "./constants";

export interface SelectCandidate {
  id: string;
  /** 0–1; out of range is a bug and throws. */
  relevance: number;
  /** Semantic (embedding) match, not keyword-only. */
  semantic: boolean;
  rankScore: number | null;
  payable: boolean;
}

export type ShortlistItem<T extends SelectCandidate> = T & { score: number };

export function selectShortlist<T extends SelectCandidate>(candidates: readonly T[], opts: { limit: number }): ShortlistItem<T>[] {
  if (!Number.isSafeInteger(opts.limit) || opts.limit < 1) throw new RangeError(`limit must be an integer ≥ 1, got ${opts.limit}`);
  for (const c of candidates) {
    if (!Number.isFinite(c.relevance) || c.relevance < 0 || c.relevance > 1) {
      throw new RangeError(`candidate ${c.id}: relevance must be 0–1, got ${c.relevance}`);
    }
    if (c.rankScore !== null && (!Number.isFinite(c.rankScore) || c.rankScore < 0)) {
      throw new RangeError(`candidate ${c.id}: rankScore must be a number ≥ 0 or null, got ${c.rankScore}`);
    }
  }

  // "The set" is the payable matches: a non-payable listing can neither be chosen nor set the bar.
  const payable = candidates.filter((c) => c.payable);
  const best = payable.reduce((m, c) => (c.rankScore !== null && c.rankScore > m ? c.rankScore : m), 0);

  return payable
    .map((c) => {
      const q = best > 0 && c.rankScore !== null ? c.rankScore / best : 0;
      return { ...c, score: c.relevance * (1 + ROUTER_RANK_WEIGHT * q) };
    })
    .sort(
      (a, b) =>
        Number(b.semantic) - Number(a.semantic) ||
        b.score - a.score ||
        b.relevance - a.relevance ||
        (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    )
    .slice(0, opts.limit);
}
