/**
 * Counts, the grade and the verdict (docs/spec/products.md "Agent verdict service: output"; the
 * bands and the withheld rule are docs/AGENT-VERDICT.md "Grading"). Weights are integers, so every
 * comparison here is exact integer arithmetic: no float decides a band.
 */
import type { Result } from "./checks";
import type { Scale } from "./request";

export interface Counts {
  total: number;
  pass: number;
  fail: number;
  inconclusive: number;
  weight: { total: number; pass: number; fail: number; inconclusive: number };
}

export interface Band {
  value: string;
  /** The least percent of decided weight that earns this value. */
  minPercent: number;
}

export interface Grade {
  scale: Scale;
  value: string | number | null;
  scorePercentOfDecidedWeight: number | null;
  withheldReason: string | null;
  bands: Band[];
  rule: string;
}

export type Verdict = "ACCEPT" | "REJECT" | "NO_VERDICT";

/** A grade is withheld when more than this share of the total weight is INCONCLUSIVE (numerator/denominator). */
export const WITHHELD_INCONCLUSIVE_SHARE = { over: 1, of: 4 } as const;

export const BANDS: Record<Scale, Band[]> = {
  PASS_FAIL: [
    { value: "PASS", minPercent: 100 },
    { value: "FAIL", minPercent: 0 },
  ],
  A_F: [
    { value: "A", minPercent: 90 },
    { value: "B", minPercent: 80 },
    { value: "C", minPercent: 70 },
    { value: "D", minPercent: 60 },
    { value: "F", minPercent: 0 },
  ],
  // Every integer score is its own band; the value is the score rounded half up.
  SCORE_0_100: [{ value: "score", minPercent: 0 }],
};

export const GRADE_RULES: Record<Scale, string> = {
  PASS_FAIL: "PASS when no weighted criterion FAILED (100% of the decided weight passed), else FAIL; decided weight is the weight of PASS and FAIL criteria",
  A_F: "the percent of decided weight that passed: A at 90 or more, B at 80, C at 70, D at 60, F below 60",
  SCORE_0_100: "the percent of decided weight that passed, rounded half up to an integer 0-100",
};

export const WITHHELD_RULE = "the grade is withheld (value null) when the total weight is 0 (NO_WEIGHT) or more than 25% of the total weight is INCONCLUSIVE (TOO_MUCH_INCONCLUSIVE_WEIGHT)";

export const VERDICT_RULE = "ACCEPT when every criterion is PASS; REJECT when any criterion is FAIL; otherwise (no FAIL, at least one INCONCLUSIVE) NO_VERDICT; weights do not enter the verdict";

export function countResults(rows: Array<{ result: Result; weight: number }>): Counts {
  const c: Counts = { total: rows.length, pass: 0, fail: 0, inconclusive: 0, weight: { total: 0, pass: 0, fail: 0, inconclusive: 0 } };
  for (const r of rows) {
    const k = r.result === "PASS" ? "pass" : r.result === "FAIL" ? "fail" : "inconclusive";
    c[k]++;
    c.weight[k] += r.weight;
    c.weight.total += r.weight;
  }
  return c;
}

export function verdictOf(c: Counts): Verdict {
  if (c.fail > 0) return "REJECT";
  if (c.inconclusive > 0) return "NO_VERDICT";
  return "ACCEPT";
}

/** Percent of decided weight, to two decimals (half up), or null when nothing weighted was decided. */
function percent(passW: number, decided: number): number | null {
  if (decided === 0) return null;
  return Math.floor((passW * 20_000 + decided) / (2 * decided)) / 100;
}

export function gradeOf(scale: Scale, c: Counts): Grade {
  const decided = c.weight.pass + c.weight.fail;
  const score = percent(c.weight.pass, decided);
  const tail = { bands: BANDS[scale], rule: `${GRADE_RULES[scale]}; ${WITHHELD_RULE}` };
  let withheldReason: string | null = null;
  if (c.weight.total === 0) withheldReason = "NO_WEIGHT";
  else if (c.weight.inconclusive * WITHHELD_INCONCLUSIVE_SHARE.of > c.weight.total * WITHHELD_INCONCLUSIVE_SHARE.over) withheldReason = "TOO_MUCH_INCONCLUSIVE_WEIGHT";
  if (withheldReason) return { scale, value: null, scorePercentOfDecidedWeight: score, withheldReason, ...tail };
  // Not withheld, so decided > 0. Band by exact integers: pass*100 >= minPercent*decided.
  let value: string | number;
  if (scale === "SCORE_0_100") value = Math.floor((c.weight.pass * 200 + decided) / (2 * decided));
  else value = BANDS[scale].find((b) => c.weight.pass * 100 >= b.minPercent * decided)!.value;
  return { scale, value, scorePercentOfDecidedWeight: score, withheldReason: null, ...tail };
}
