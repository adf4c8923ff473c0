/**
 * The free pre-check's allowance (docs/spec/products.md "Validity-check free pre-check"): 100 per
 * day per caller wallet, at least 5,000 ms apart, 402 on exhaustion. In memory, per process; a day
 * is a UTC calendar day. Only the caller key, the day, a count and the last use are held: never
 * anything of the artefact.
 */
export const FREE_PER_DAY = 100;
export const FREE_MIN_INTERVAL_MS = 5_000;

export type AllowanceRefusal = "free_daily_allowance_exhausted" | "free_min_interval";
export type AllowanceAnswer = { ok: true; remainingToday: number } | { ok: false; refusal: AllowanceRefusal; retryAfterMs: number };

interface Use {
  day: string;
  count: number;
  lastMs: number;
}

export class FreeAllowance {
  private readonly uses = new Map<string, Use>();
  private day = "";

  constructor(
    private readonly now: () => number,
    readonly perDay = FREE_PER_DAY,
    readonly minIntervalMs = FREE_MIN_INTERVAL_MS,
  ) {}

  /** Takes one free use for `key`, or says why not (a refused attempt takes nothing). */
  take(key: string): AllowanceAnswer {
    const nowMs = this.now();
    const day = new Date(nowMs).toISOString().slice(0, 10);
    if (day !== this.day) {
      // A new UTC day: yesterday's counts are over, and nothing else needs keeping.
      this.uses.clear();
      this.day = day;
    }
    const use = this.uses.get(key);
    if (use && use.count >= this.perDay) {
      const nextDay = Date.parse(`${day}T00:00:00.000Z`) + 86_400_000;
      return { ok: false, refusal: "free_daily_allowance_exhausted", retryAfterMs: nextDay - nowMs };
    }
    if (use && nowMs - use.lastMs < this.minIntervalMs) {
      return { ok: false, refusal: "free_min_interval", retryAfterMs: this.minIntervalMs - (nowMs - use.lastMs) };
    }
    const count = (use?.count ?? 0) + 1;
    this.uses.set(key, { day, count, lastMs: nowMs });
    return { ok: true, remainingToday: this.perDay - count };
  }
}
