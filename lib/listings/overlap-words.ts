/** Pure, so client components may import it. */

export type OverlapReason = "base_url" | "endpoints";

export const OVERLAP_WORDS: Record<OverlapReason, string> = {
  base_url: "the same base URL",
  endpoints: "the same endpoints",
};
