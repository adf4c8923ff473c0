/**
 * Intake: the one use case for a URL a seller submits, whichever door it came through — the
 * seller's "Add a service" form (draftFromUrlAction, lib/surfaces/seller-actions.ts) or the API
 * (POST /api/analyses `{url}`, submitAnalysisForActor in lib/intake/api-door.ts). Both call
 * registerListing; the steps are numbered below and each runs exactly once per submission:
 *
 *   (1) validate the target once: lib/net's checkTarget under the probe's allow-list. The
 *       CheckedTarget is handed on, so neither the draft nor the queue checks it again.
 *   (2) draft the listing from the URL (lib/discovery: the discovery documents, and each resource
 *       called once, unpaid, in parallel under a bound).
 *   (3) write the listing through the one listing writer (lib/listings/save.ts writeListing /
 *       writeListingIn).
 *   (4) enqueue the analysis (lib/queue/enqueue-analysis.ts requestAnalysis).
 *
 * Where steps 2–4 run differs by door, and that is decided here on purpose:
 *
 * - "review" (the form): (1) and (2) run here, in the request, and the draft goes back to the
 *   seller to review — the form promises "Nothing is saved until you choose to" (only the draft's
 *   unpaid answers are kept, server-side, for the publish analysis: lib/queue/draft-calls.ts). (3) runs when the
 *   seller saves (saveListingAction → createListingForSeller → writeListing) and (4) when they
 *   publish (publishListing checks the saved base URL once and hands it to onListingPublished →
 *   requestAnalysis).
 * - "queue" (the API): (1) and (4) run here and the API answers 202 at once with the queued
 *   analysis and `listingId: null` (its contract, docs/QUEUE.md). (2) runs in the catalog-monitor
 *   worker (lib/catalog-monitor/probes.ts realProbe → lib/discovery draftListingFromUrl), because that run
 *   probes the same endpoints next: the draft's unpaid calls become the probe's evidence, so each
 *   endpoint is called once per submission, not once to draft and again to probe. The worker holds
 *   no database credentials and cannot import this file, so it calls lib/discovery directly, and it
 *   re-checks the target it received over the ops API (its own SSRF guard; safeFetch guards every
 *   request besides). (3) runs in the analysis completion (lib/analyses/store-result.ts
 *   completeLease), inside its transaction, through writeDraftedListing (lib/listings/save.ts) and
 *   so through the same writer as the form.
 */
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
  /** "review": draft for the seller's form; "queue": queue the analysis (the API). See the header. */
  mode: IntakeMode;
  /**
   * The API door only: the seller confirms a second listing of a service its organisation already
   * lists (the form's "You can still review and save the draft"). Without it the API answers 409
   * `duplicate_listing` naming the existing listings.
   */
  allowDuplicate?: boolean;
}

export interface IntakeOptions {
  /** The probe's allow-list; default TOLLGATE_PROBE_ALLOW_HOSTS. */
  allowHosts?: string[];
  /** For the draft (review): DNS and the per-request deadline. */
  resolver?: Resolver;
  deadlineMs?: number;
  client?: Client;
}

/** A listing of the seller's own organisation that lists the same service (lib/listings/overlap.ts). */
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
      /** The named checks per payable endpoint and our readiness rules over the draft (docs/PROBE.md "Receipts"). */
      checks: EndpointChecks[]; readiness: DraftReadiness;
    }
  | { ok: false; code: string; detail: string };

/** Each door's own words for a seller without an organisation (unchanged from before the intake). */
const NO_ORGANISATION: Record<IntakeMode, string> = {
  review: "Your account has no seller organisation, so it cannot list services.",
  queue: "Join or create an organization before submitting a service.",
};

export async function registerListing(actorId: string | null, req: IntakeRequest & { mode: "review" }, opts?: IntakeOptions): Promise<ReviewOutcome>;
export async function registerListing(actorId: string | null, req: IntakeRequest & { mode: "queue" }, opts?: IntakeOptions): Promise<EnqueuedAnalysis>;
export async function registerListing(actorId: string | null, req: IntakeRequest, opts: IntakeOptions = {}): Promise<ReviewOutcome | EnqueuedAnalysis> {
  // (0) Who: a seller with an organisation (the role is read fresh, lib/auth).
  const actor = await requireActor(actorId);
  if (!actor.organizationId) throw new AppError("forbidden", NO_ORGANISATION[req.mode]);
  // Per user, whichever door: a draft calls the seller's endpoints, a queued one takes a worker (docs/LIMITS.md).
  await takeRateLimit("intake", actor.id, { client: opts.client });
  let url = req.url;
  if (req.mode === "review") {
    // The form's field: a non-empty URL of up to 2048 characters (the API's body schema says the same).
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
    // (2) Draft here; (3) and (4) wait for the seller to save and publish (header).
    const drafted = await draftListingFromTarget(checked.target, { allowHosts, resolver: opts.resolver, deadlineMs: opts.deadlineMs });
    if (!drafted.ok) return { ok: false, code: "refusal" in drafted ? drafted.refusal : drafted.error, detail: drafted.detail };
    const prisma = await prismaOf(opts.client);
    // The draft's answers wait for the publish analysis, so the probe does not call them again.
    await keepDraftCalls(prisma, actor.organizationId, callsToWire(drafted.calls));
    const existing = await ownOverlaps(prisma, actor.organizationId, [drafted.draft, { baseUrl: url, endpoints: [] }]);
    // Another listing of the same title (not already named as the same service): two tiles of one name confuse buyers.
    const sameTitle = await findSameTitleListings(prisma, actor.organizationId, drafted.draft.title, { excludeIds: existing.map((x) => x.id) });
    // The named checks and our readiness rules, each endpoint's receipted (insert-only).
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

  // Duplicate intake at the API door: there is no draft yet (the worker makes it), so the URL
  // submitted is compared as a base URL. The same owner is refused unless it confirms; another
  // owner's listing of it is no business of this seller's, and the moderators' desk flags the two
  // once the completion writes this one (lib/surfaces/admin.ts, crossOwnerOverlaps).
  if (!req.allowDuplicate) {
    const existing = await ownOverlaps(await prismaOf(opts.client), actor.organizationId, [{ baseUrl: url, endpoints: [] }]);
    if (existing.length > 0) throw duplicateListingError(existing);
  }

  // (4) Enqueue, within the organisation's cap on analyses in flight; (2) runs in the worker and (3)
  // in the completion, through lib/listings' writeDraftedListing (header).
  await assertAnalysisCapacity(actor, opts.client);
  return requestAnalysis({ submitter: actor.id, requestedBy: actor.id, listingId: null, targetUrl: checked.target, trigger: "submit", priority: PRIORITY_OWNER }, opts.client);
}

/**
 * Duplicate intake: the organisation's own listings of the same service (the same base URL as the
 * URL submitted or the draft's, or the same endpoint set). The form offers to open one instead of
 * saving a second; nothing is refused. Other organisations' listings of it are not named to the
 * seller (their drafts are private); the moderators' desk shows those overlaps.
 */
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

/** The API door's 409: the organisation's listings of this service, each named, and how to go on. */
function duplicateListingError(existing: ExistingListing[]): AppError {
  const named = existing.map((x) => `"${x.title}" (${x.slug}, listing ${x.id}, ${x.publicationState}; ${OVERLAP_WORDS[x.reason]})`).join(", ");
  return new AppError(
    "duplicate_listing",
    `Your organisation already lists this service: ${named}. Send {"listingId": "${existing[0].id}"} to re-analyse it, or repeat this request with "allowDuplicate": true to list it a second time.`,
    existing.map((x) => ({ pointer: "/url", message: `${OVERLAP_WORDS[x.reason]} as listing ${x.id} (${x.slug})` })),
    { existing },
  );
}
