/** The owner's side of an analysis: re-analysis and progress (GET /api/analyses/:id). */
import { AppError } from "@/lib/errors";
import { requireActor } from "@/lib/auth/roles";
import { analysisWhereForActor, requireListingAccess } from "@/lib/listings/access";
import { PRIORITY_OWNER, requestAnalysis, type EnqueuedAnalysis } from "@/lib/queue/enqueue-analysis";
import { assertAnalysisCapacity, takeRateLimit } from "@/lib/limits";
import { prismaOf, type Client } from "@/lib/sql";

export interface AnalysisProgress {
  id: string;
  state: string;
  step: string;
  attempts: number;
  maxAttempts: number;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  error: string | null;
  resultId: string | null;
  listingId: string | null;
  /** While probing: endpoints probed of all, as last reported; null otherwise. */
  progress: { done: number; total: number } | null;
}

export async function getAnalysisForActor(userId: string | null, analysisId: string, client?: Client): Promise<AnalysisProgress> {
  const prisma = await prismaOf(client);
  const actor = await requireActor(userId);
  // Submitter, owner or moderator; anyone else is told it does not exist.
  const a = await prisma.analysis.findFirst({ where: { AND: [{ id: analysisId }, analysisWhereForActor(actor, { moderators: true })] } });
  if (!a) throw new AppError("not_found", `analysis ${analysisId} does not exist or is not yours`);
  return {
    id: a.id,
    state: a.state,
    step: a.step,
    attempts: a.attempts,
    maxAttempts: a.maxAttempts,
    createdAt: a.createdAt.toISOString(),
    startedAt: a.startedAt?.toISOString() ?? null,
    finishedAt: a.finishedAt?.toISOString() ?? null,
    error: a.error,
    resultId: a.resultId,
    listingId: a.listingId,
    progress: a.state === "running" && a.step === "probing" && a.progressTotal !== null && a.progressDone !== null ? { done: a.progressDone, total: a.progressTotal } : null,
  };
}

export async function reanalyseForActor(userId: string | null, listingId: string, client?: Client, trigger: "submit" | "reanalyse" = "reanalyse"): Promise<EnqueuedAnalysis> {
  const prisma = await prismaOf(client);
  const { actor, listing } = await requireListingAccess(userId, listingId, { client: prisma });
  // Per user, then the organisation's in-flight cap (docs/LIMITS.md).
  await takeRateLimit("reanalyse", actor.id, { client: prisma });
  await assertAnalysisCapacity(actor, prisma);
  return requestAnalysis({ submitter: actor.id, requestedBy: actor.id, listingId, targetUrl: listing.baseUrl, trigger, priority: PRIORITY_OWNER }, prisma);
}
