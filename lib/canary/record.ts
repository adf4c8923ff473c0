/**
 * The canary's writes (docs/CANARY.md "Batched writes"): the sample before a payment leaves, and the one transaction
 * that ends a run, then the re-rank.
 */
import { db } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { rows, type PrismaLike } from "@/lib/sql";
import { recomputeListingRank } from "@/lib/rank/sweep-ranks";
import { recordSamplesObservations, type OutputFacts } from "@/lib/trust/observe";
import { releaseUnsigned } from "./budget";
import { verificationOf, type SampleOutcome, type Verification } from "./judge";

export interface RunResult {
  runId: string;
  state: "done" | "deferred";
  outcome: Verification | null;
  reason: string;
}

/** Written with the sample, never changed. */
export interface SampleIdentity {
  runId: string;
  listingId: string;
  endpointId: string;
  method: string;
  path: string;
  listedAmount: string | null;
  payer?: string;
}

export type Quoted = { quotedAmount: string; quotedPayTo: string; quotedAsset: string; quotedNetwork: string };

/** `sampleId`: the pending sample written before payment; null when judged before signing. */
export interface Completion {
  sampleId: string | null;
  identity: SampleIdentity;
  data: Record<string, unknown> & { outcome: SampleOutcome | null; reason: string };
  output: OutputFacts | null;
  at: Date;
}

/** Before the payment leaves: a retry finds the payment by nonce and never signs again. */
export async function writeSignedSample(identity: SampleIdentity, quoted: Quoted, nonce: string, priorId: string | null): Promise<string> {
  const prisma = await db();
  if (!priorId) return (await prisma.canarySample.create({ data: { ...identity, ...quoted, authorizationNonce: nonce }, select: { id: true } })).id;
  const prior = await prisma.canarySample.findUniqueOrThrow({ where: { id: priorId }, select: { quotedAmount: true } });
  await prisma.canarySample.update({ where: { id: priorId }, data: prior.quotedAmount === null ? { ...quoted, authorizationNonce: nonce } : { authorizationNonce: nonce } });
  return priorId;
}

async function writeCompletions(tx: PrismaLike, completions: Completion[]): Promise<void> {
  const completed: Array<{ sampleId: string; output: OutputFacts | null }> = [];
  for (const c of completions) {
    const data = { ...c.data, state: "completed" as const, completedAt: c.at };
    let id = c.sampleId;
    if (id === null) id = (await tx.canarySample.create({ data: { ...c.identity, ...data }, select: { id: true } })).id;
    else if ((await tx.canarySample.updateMany({ where: { id, state: "pending" }, data })).count !== 1) continue;
    completed.push({ sampleId: id, output: c.output });
  }
  await recordSamplesObservations(tx, completed);
}

export interface FinishInput {
  runId: string;
  leaseToken: string;
  listingId: string;
  completions: Completion[];
  /** A run ended before any call; otherwise the outcome comes from the samples. */
  fixed?: { state: "done" | "deferred"; outcome: Verification | null; reason: string };
}

/** A run whose lease was lost writes nothing; the lease's holder reconciles. */
export async function finishRun(input: FinishInput): Promise<RunResult> {
  const { runId, leaseToken, listingId } = input;
  const prisma = await db();
  const ended = await prisma.$transaction(async (tx) => {
    await writeCompletions(tx, input.completions);
    let { state, outcome, reason } = input.fixed ?? { state: "done" as const, outcome: null, reason: "" };
    const samples = await tx.canarySample.findMany({ where: { runId }, select: { method: true, path: true, outcome: true, reason: true } });
    if (!input.fixed) {
      outcome = verificationOf(samples.map((s) => s.outcome));
      const notPassed = samples.filter((s) => s.outcome !== "pass").map((s) => `${s.method} ${s.path}: ${s.outcome ?? "no verdict"} (${s.reason})`);
      reason = notPassed.length ? notPassed.join("; ") : `all ${samples.length} endpoint${samples.length === 1 ? "" : "s"} passed`;
    }
    const moved = await tx.canaryRun.updateMany({
      where: { id: runId, state: "running", leaseToken },
      data: { state, outcome: state === "done" ? outcome : null, reason: reason.slice(0, 2000), finishedAt: new Date(), leaseToken: null, leaseExpiresAt: null },
    });
    if (moved.count !== 1) throw new AppError("conflict", `canary run ${runId} lost its lease before it finished`);
    // A listing reset since this run started keeps the reset's status.
    const [listing] = await rows<{ stale: boolean; resetReason: string | null; status: string }>(
      tx,
      `SELECT COALESCE(l."verificationResetAt" > r."startedAt", false) AS stale, l."verificationResetReason" AS "resetReason", l."verificationStatus"::text AS "status"
         FROM "listings" l JOIN "canary_runs" r ON r."id" = $2 WHERE l."id" = $1 FOR UPDATE OF l`,
      listingId,
      runId,
    );
    let changed = false;
    if (listing?.stale) await rows(tx, `SELECT tollgate_canary_queue_front($1, $2)`, listingId, `the listing changed during run ${runId}: ${listing.resetReason}`);
    else if (state === "done" && outcome && !(outcome === "unverified" && listing?.status === "degraded" && !samples.some((x) => x.outcome !== null))) {
      // A run that judged nothing (no sample with a verdict: prices above the ceiling, no payable endpoint, no x402)
      // never clears "degraded": only a run that paid and judged does (lib/canary/launder.test.ts).
      changed = listing?.status !== outcome;
      if (changed) await tx.listing.update({ where: { id: listingId }, data: { verificationStatus: outcome } });
    }
    await releaseUnsigned(tx, runId, listingId);
    return { state, outcome: state === "done" ? outcome : null, reason, changed };
  });
  // An unchanged verification leaves the rank to the sweep.
  if (ended.changed) await recomputeListingRank(listingId);
  return { runId, state: ended.state, outcome: ended.outcome, reason: ended.reason };
}
