/** Intake: the one use case for a URL a seller submits, on either door (docs/QUEUE.md "The intake"). */
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { requireActor } from "@/lib/auth/roles";
import { assertAnalysisCapacity, takeRateLimit } from "@/lib/limits";
import { checkTarget, type Resolver } from "@/lib/net";
import { draftListingFromTarget, type DraftSource } from "@/lib/discovery/import";
import type { ListingDocument } from "@/lib/listing-document/document";
import { OVERLAP_WORDS, findOverlappingListings, findSameTitleListings, type OverlapCandidate, type OverlapReason, type SameTitleListing } from "@/lib/listings/overlap";
import { PRIORITY_OWNER, refusedTargetError, requestAnalysis, type EnqueuedAnalysis } from "@/lib/queue/enqueue-analysis";
import { keepDraftCalls } from "@/lib/queue/draft-calls";
import { callsToWire } from "@/lib/ops-wire";
import { readinessOf, registrationChecks, type DraftReadiness, type EndpointChecks } from "./index-resource";
import { insertReceipt } from "./receipts";
import { prismaOf, type Client, type PrismaLike } from "@/lib/sql";

export type IntakeMode = "review" | "queue";

export interface IntakeRequest {
  url: string;
  mode: IntakeMode;
  allowDuplicate?: boolean;
}

export interface IntakeOptions {
  allowHosts?: string[];
  resolver?: Resolver;
  deadlineMs?: number;
  client?: Client;
}

export interface ExistingListing {
  id: string;
  slug: string;
  title: string;
  publicationState: string;
  reason: OverlapReason;
}

export type ReviewOutcome =
  | {
      ok: true; draft: ListingDocument; sources: DraftSource[]; warnings: string[]; url: string; existing: ExistingListing[]; sameTitle: SameTitleListing[];
      checks: EndpointChecks[]; readiness: DraftReadiness;
    }
  | { ok: false; code: string; detail: string };

const NO_ORGANISATION: Record<IntakeMode, string> = {
  review: "Your account has no seller organisation, so it cannot list services.",
  queue: "Join or create an organization before submitting a service.",
};

export async function registerListing(actorId: string | null, req: IntakeRequest & { mode: "review" }, opts?: IntakeOptions): Promise<ReviewOutcome>;
export async function registerListing(actorId: string | null, req: IntakeRequest & { mode: "queue" }, opts?: IntakeOptions): Promise<EnqueuedAnalysis>;
export async function registerListing(actorId: string | null, req: IntakeRequest, opts: IntakeOptions = {}): Promise<ReviewOutcome | EnqueuedAnalysis> {
  const actor = await requireActor(actorId);
  if (!actor.organizationId) throw new AppError("forbidden", NO_ORGANISATION[req.mode]);
  await takeRateLimit("intake", actor.id, { client: opts.client });
  let url = req.url;
  if (req.mode === "review") {
    if (typeof url !== "string" || url.trim() === "" || url.length > 2048) {
      return { ok: false, code: "invalid_url", detail: "Enter the URL of your service (up to 2048 characters)." };
    }
    url = url.trim();
  }

  // (1) Validate the target, once.
  const allowHosts = opts.allowHosts ?? env().probeAllowHosts;
  const checked = checkTarget(url, allowHosts);
  if (!checked.ok) {
    if (req.mode === "queue") throw refusedTargetError(checked);
    return { ok: false, code: checked.refusal, detail: checked.detail };
  }

  if (req.mode === "review") {
    // (2) Draft here; (3) and (4) wait for save and publish.
    const drafted = await draftListingFromTarget(checked.target, { allowHosts, resolver: opts.resolver, deadlineMs: opts.deadlineMs });
    if (!drafted.ok) return { ok: false, code: "refusal" in drafted ? drafted.refusal : drafted.error, detail: drafted.detail };
    const prisma = await prismaOf(opts.client);
    // Kept for the publish analysis, so the probe does not call them again.
    await keepDraftCalls(prisma, actor.organizationId, callsToWire(drafted.calls));
    const existing = await ownOverlaps(prisma, actor.organizationId, [drafted.draft, { baseUrl: url, endpoints: [] }]);
    const sameTitle = await findSameTitleListings(prisma, actor.organizationId, drafted.draft.title, { excludeIds: existing.map((x) => x.id) });
    const checks = await registrationChecks(drafted.draft, drafted.calls, { allowHosts, resolver: opts.resolver, deadlineMs: opts.deadlineMs });
    const readiness = readinessOf(drafted.draft);
    for (const c of checks) {
      const failed = c.checks.find((x) => !x.pass);
      await insertReceipt(prisma, {
        kind: "register", status: failed ? "rejected" : "success", rejectedCode: failed?.id ?? null, rejectedReason: failed ? `${failed.id}: ${failed.detail}` : null,
        caller: `user:${actor.id}`, organizationId: actor.organizationId, resourceUrl: c.url, method: c.endpoint.split(" ")[0], checks: c.checks, readiness,
      });
    }
    return { ok: true, draft: drafted.draft, sources: drafted.sources, warnings: drafted.warnings, url, existing, sameTitle, checks, readiness };
  }

  // No draft yet on the API door, so the URL is compared as a base URL.
  if (!req.allowDuplicate) {
    const existing = await ownOverlaps(await prismaOf(opts.client), actor.organizationId, [{ baseUrl: url, endpoints: [] }]);
    if (existing.length > 0) throw duplicateListingError(existing);
  }

  // (4) Enqueue; (2) runs in the worker, (3) in the completion.
  await assertAnalysisCapacity(actor, opts.client);
  return requestAnalysis({ submitter: actor.id, requestedBy: actor.id, listingId: null, targetUrl: checked.target, trigger: "submit", priority: PRIORITY_OWNER }, opts.client);
}

/** Offered, never refused; other organisations' drafts are private. */
async function ownOverlaps(prisma: PrismaLike, organizationId: string, candidates: OverlapCandidate[]): Promise<ExistingListing[]> {
  const found = new Map<string, ExistingListing>();
  for (const candidate of candidates) {
    for (const o of await findOverlappingListings(prisma, candidate)) {
      if (o.organizationId !== organizationId || found.has(o.id)) continue;
      found.set(o.id, { id: o.id, slug: o.slug, title: o.title, publicationState: o.publicationState, reason: o.reason });
    }
  }
  return [...found.values()];
}

function duplicateListingError(existing: ExistingListing[]): AppError {
  const named = existing.map((x) => `"${x.title}" (${x.slug}, listing ${x.id}, ${x.publicationState}; ${OVERLAP_WORDS[x.reason]})`).join(", ");
  return new AppError(
    "duplicate_listing",
    `Your organisation already lists this service: ${named}. Send {"listingId": "${existing[0].id}"} to re-analyse it, or repeat this request with "allowDuplicate": true to list it a second time.`,
    existing.map((x) => ({ pointer: "/url", message: `${OVERLAP_WORDS[x.reason]} as listing ${x.id} (${x.slug})` })),
    { existing },
  );
}
