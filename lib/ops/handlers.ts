/** The ops API's behaviour, one function per route (app/api/ops/**); the in-process worker calls them directly. */
import { z } from "zod";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { completeLease } from "@/lib/analyses/store-result";
import { claimLeases, failLease, heartbeatLease } from "@/lib/queue/lease";
import { monitorSupport } from "@/lib/queue/monitors";
import { takeDraftCalls } from "@/lib/queue/draft-calls";
import { loadListingDocuments } from "@/lib/listings/load-listing-documents";
import { analysisMetrics, setQueueDepthReader } from "@/lib/queue/metrics";
import { LeaseLostError, type ClaimRequest, type ClaimResponse, type CompleteRequest, type CompleteResponse, type FailRequest, type FailResponse, type HeartbeatRequest, type HeartbeatResponse, type OpsClient, type PrefetchedCall } from "@/lib/ops-wire";
import { clientOr, rows, type Client } from "@/lib/sql";

const token = z.string().min(8).max(128);
export const ClaimBody = z
  .object({
    workerId: z.string().min(1).max(128),
    limit: z.number().int().min(1).max(1000),
    leaseMs: z.number().int().positive().optional(),
    // The monitor must support a version before the API serves it (docs/spec/scoring-system.md "Governance").
    rubricVersions: z.array(z.string().regex(/^readiness\/\d+\.\d+\.\d+$/, 'must be a rubric version such as "readiness/1.2.0"')).max(64),
  })
  .strict();
export const HeartbeatBody = z.object({ leaseToken: token, leaseMs: z.number().int().positive().optional(), step: z.literal("probing").optional(), progress: z.object({ done: z.number().int().min(0).max(10_000), total: z.number().int().min(0).max(10_000) }).strict().refine((p) => p.done <= p.total, "done must not exceed total").optional() }).strict();
export const CompleteBody = z.object({ leaseToken: token, evidence: z.unknown(), document: z.unknown().optional(), probeMs: z.number().nonnegative().optional() }).strict();
export const FailBody = z.object({ leaseToken: token, reason: z.string().min(1).max(2000), retryable: z.boolean().optional() }).strict();

export async function opsClaim(req: ClaimRequest, client?: Client): Promise<ClaimResponse> {
  const prisma = await clientOr(client);
  const leased = await claimLeases({ workerId: req.workerId, limit: req.limit, leaseMs: req.leaseMs, rubricVersions: req.rubricVersions, client: prisma });
  const support = monitorSupport(req.workerId, req.rubricVersions);
  if (!support.supported) return { jobs: [], waiting: { rubricVersion: support.served, reason: support.reason! } };
  const docs = await loadListingDocuments(prisma, leased.flatMap((l) => (l.listingId ? [l.listingId] : [])));
  const allowHosts = env().probeAllowHosts;
  // A publish analysis takes the form door's draft answers (lib/queue/draft-calls.ts).
  const prefetched = new Map<string, PrefetchedCall[]>();
  for (const l of leased) {
    const doc = l.listingId && l.trigger === "publish" ? docs.get(l.listingId) : undefined;
    if (doc) prefetched.set(l.id, await takeDraftCalls(prisma, l.listingId!, doc));
  }
  return {
    jobs: leased.map((l) => ({
      id: l.id,
      listingId: l.listingId,
      trigger: l.trigger,
      targetUrl: l.targetUrl,
      attempt: l.attempt,
      maxAttempts: l.maxAttempts,
      leaseToken: l.leaseToken,
      leaseExpiresAt: l.leaseExpiresAt,
      document: l.listingId ? (docs.get(l.listingId) ?? null) : null,
      allowHosts,
      ...(prefetched.get(l.id)?.length ? { prefetched: prefetched.get(l.id) } : {}),
    })),
  };
}

export function opsHeartbeat(id: string, req: HeartbeatRequest, client?: Client): Promise<HeartbeatResponse> {
  return heartbeatLease(id, req, client);
}

export async function opsComplete(id: string, req: CompleteRequest, client?: Client): Promise<CompleteResponse> {
  const { evidenceId: _evidenceId, ...out } = await completeLease(id, req, { client });
  return out;
}

export function opsFail(id: string, req: FailRequest, client?: Client): Promise<FailResponse> {
  return failLease(id, req, client);
}

async function queueDepth(): Promise<Record<string, number>> {
  const counted = await rows<{ state: string; n: number }>(
    await clientOr(),
    `SELECT "state"::text AS "state", count(*)::int AS "n" FROM "catalog_scoring_analyses" GROUP BY "state"`,
  );
  return Object.fromEntries(counted.map((r) => [r.state, r.n]));
}

export async function opsMetricsText(): Promise<{ body: string; contentType: string }> {
  setQueueDepthReader(queueDepth);
  const { registry } = analysisMetrics();
  return { body: await registry.metrics(), contentType: registry.contentType };
}

/** The in-process worker's transport: the routes' functions without HTTP; lease_lost maps to LeaseLostError. */
export function opsDirectClient(): OpsClient {
  const wrap = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof AppError && e.code === "lease_lost") throw new LeaseLostError(e.message);
      throw e;
    }
  };
  return {
    claim: (r) => wrap(() => opsClaim(r)),
    heartbeat: (id, r) => wrap(() => opsHeartbeat(id, r)),
    complete: (id, r) => wrap(() => opsComplete(id, r)),
    fail: (id, r) => wrap(() => opsFail(id, r)),
  };
}
