/** Shared shapes of the moderators' read models (lib/surfaces/admin.ts, which authorises each caller). */

/**
 * A listing row read with its listing_ranks relation, in the flat shape the moderators' read models
 * keep: qualityScore and rankScore beside the listing's own columns (null until ranked).
 */
export function withRankScores<R extends { rank: { qualityScore: number | null; rankScore: number | null } | null }>(
  row: R,
): Omit<R, "rank"> & { qualityScore: number | null; rankScore: number | null } {
  const { rank, ...rest } = row;
  return { ...rest, qualityScore: rank?.qualityScore ?? null, rankScore: rank?.rankScore ?? null };
}
