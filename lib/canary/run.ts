/**
 * A canary run (docs/CANARY.md "A run"): the house pays every listable endpoint through the relay, one immutable
 * sample each; the outcome becomes the listing's verification.
 */
import { db } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { isListed } from "@/lib/listings/visibility";
import { reserve } from "./budget";
import { declaredTimeoutMs, ENDPOINT_SELECT, houseAccount, unrunnableReason, type CanaryOptions, type EndpointRow } from "./choose";
import { anyHouseKey } from "./house";
import { holdLease, CANARY_LEASE_MS } from "./lease";
import { callEndpoint, reconcile } from "./pay";
import { approvedUpTo, priceCeiling } from "./price-ceiling";
import { finishRun, type Completion, type RunResult } from "./record";

export type { CanaryOptions, CanaryStage } from "./choose";
export type { RunResult } from "./record";

/** The whole run, or what an interrupted attempt left; throws when interrupted (given back and retried). */
export async function executeRun(runId: string, leaseToken: string, options: CanaryOptions & { leaseMs?: number } = {}): Promise<RunResult> {
  const prisma = await db();
  const run = await prisma.canaryRun.findUnique({ where: { id: runId } });
  if (!run || run.state !== "running" || run.leaseToken !== leaseToken) throw new AppError("conflict", `canary run ${runId} is not leased with this token`);
  const listing = await prisma.listing.findUnique({
    where: { id: run.listingId },
    select: { id: true, slug: true, publicationState: true, protocols: true, timeouts: true, canarySuspendedAt: true, endpoints: { select: ENDPOINT_SELECT, orderBy: { position: "asc" } } },
  });
  if (!listing) throw new AppError("not_found", `listing ${run.listingId} does not exist`);
  const finish = (state: "done" | "deferred", outcome: RunResult["outcome"], reason: string) => finishRun({ runId, leaseToken, listingId: listing.id, completions: [], fixed: { state, outcome, reason } });
  if (listing.canarySuspendedAt) return finish("deferred", null, "suspended");
  if (!isListed(listing)) return finish("done", "unverified", `not_listed: ${listing.publicationState}`);
  const endpoints = listing.endpoints.filter((e) => e.payable) as EndpointRow[];
  if (endpoints.length === 0) return finish("done", "unverified", "no_payable_endpoint");
  if (!listing.protocols.includes("x402")) return finish("done", "unverified", `protocol_not_supported: ${listing.protocols.join(", ") || "none"} (the canary pays over x402)`);
  if (!options.key && !anyHouseKey()) return finish("done", "unverified", "no_house_wallet");

  // An endpoint the canary cannot call gets a sample without a verdict.
  const [ceiling, approved] = [options.priceCeiling ?? priceCeiling(), await approvedUpTo(listing.id)];
  const unrunnable = (e: EndpointRow) => unrunnableReason(e, options, ceiling, approved);
  const runnable = endpoints.filter((e) => unrunnable(e) === null);
  const reservation = await reserve({ runId, listingId: listing.id, amount: runnable.reduce((s, e) => s + BigInt(e.priceAmount!), 0n), caps: options.caps });
  if (!reservation.ok) return finish("deferred", null, `budget: the ${reservation.scope} cap has ${reservation.left} left`);

  const lease = holdLease(runId, leaseToken, options.leaseMs ?? CANARY_LEASE_MS);
  try {
    const slowMs = declaredTimeoutMs(listing.timeouts);
    const priors = new Map((await prisma.canarySample.findMany({ where: { runId } })).map((s) => [s.endpointId, s]));
    const completions: Completion[] = [];
    for (const e of endpoints) {
      if (lease.lost()) throw new AppError("conflict", `canary run ${runId} lost its lease`);
      const prior = priors.get(e.id);
      if (prior?.state === "completed") continue;
      const identity = { runId, listingId: listing.id, endpointId: e.id, method: e.method, path: e.trustPath, listedAmount: e.priceAmount };
      const cannot = unrunnable(e);
      if (cannot) completions.push({ sampleId: prior?.id ?? null, identity, data: { outcome: null, reason: cannot }, output: null, at: new Date() });
      else if (prior?.authorizationNonce) completions.push(await reconcile(prior, identity, options));
      else completions.push(await callEndpoint({ slug: listing.slug, endpoint: e, identity, account: houseAccount(options, e.priceNetwork!)!, slowMs, priorId: prior?.id ?? null }, options));
    }
    return await finishRun({ runId, leaseToken, listingId: listing.id, completions });
  } finally {
    lease.stop();
  }
}
