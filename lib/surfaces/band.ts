/** Band names for people; a stored label ("Excellent") and a rubric id ("excellent") read the same. */
import { CURRENT_RUBRIC } from "@/lib/scoring/readiness/rubric";

const byKey = new Map<string, string>();
for (const b of CURRENT_RUBRIC.bands) {
  byKey.set(b.id.toLowerCase(), b.label);
  byKey.set(b.label.toLowerCase(), b.label);
}

export function bandLabel(band: string | null | undefined): string | null {
  if (!band) return null;
  return byKey.get(band.toLowerCase()) ?? band;
}

/** A result older than 7 days is stale (provisional ones never are). */
export const STALE_AFTER_MS = 7 * 24 * 60 * 60 * 1000;

export function isStale(createdAt: Date | string, now: Date = new Date()): boolean {
  return now.getTime() - new Date(createdAt).getTime() > STALE_AFTER_MS;
}
