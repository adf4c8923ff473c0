/**
 * The intake's API door, POST /api/analyses: a listing id (re-analyse) or a URL (registerListing in "queue" mode).
 */
import { z } from "zod";
import { reanalyseForActor } from "@/lib/analyses/progress";
import type { EnqueuedAnalysis } from "@/lib/queue/enqueue-analysis";
import { prismaOf, type Client } from "@/lib/sql";
import { registerListing } from "./register-listing";

/**
 * Exactly one of a listing id or a URL. A URL the organisation already lists answers 409 `duplicate_listing` unless
 * `allowDuplicate: true`.
 */
export const SubmitBody = z.union([
  z.object({ listingId: z.string().min(1).max(64) }).strict(),
  z.object({ url: z.string().min(1).max(2048), allowDuplicate: z.boolean().optional() }).strict(),
]);
export type SubmitBody = z.infer<typeof SubmitBody>;

export async function submitAnalysisForActor(userId: string | null, body: SubmitBody, client?: Client): Promise<EnqueuedAnalysis> {
  const prisma = await prismaOf(client);
  if ("listingId" in body) return reanalyseForActor(userId, body.listingId, prisma, "submit");
  return registerListing(userId, { url: body.url, mode: "queue", allowDuplicate: body.allowDuplicate === true }, { client: prisma });
}
