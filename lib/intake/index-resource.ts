/** Indexing with a receipt (docs/PROBE.md "Receipts"). */
import { env } from "@/lib/env";
import { checkTarget, type Resolver } from "@/lib/net";
import { draftListingFromTarget } from "@/lib/discovery/import";
import type { ListingDocument } from "@/lib/listing-document/document";
import { validateListingDocument } from "@/lib/listing-document/validate";
import { loadListingDocuments } from "@/lib/listings/load-listing-documents";
import { writeListing } from "@/lib/listings/save";
import { onListingPublished } from "@/lib/queue/enqueue-analysis";
import { endpointUrl, probeEndpoint, type UnpaidCalls } from "@/lib/probe";
import type { EndpointEvidence } from "@/lib/evidence";
import { scoreReadiness, CURRENT_RUBRIC } from "@/lib/scoring/readiness";
import type { ReadBazaar } from "@/lib/x402/bazaar-receipt";
import { prismaOf, rows, type Client } from "@/lib/sql";
import { insertReceipt, namedChecks, settlementChecks, type NamedCheck, type Receipt, type Settled } from "./receipts";

export interface IndexOptions {
  allowHosts?: string[];
  resolver?: Resolver;
  deadlineMs?: number;
  client?: Client;
}

export interface DraftReadiness {
  rubricVersion: string;
  total: number;
  band: { id: string; label: string };
  provisional: boolean;
  rules: Array<{ id: string; status: string; earned: number; max: number; reason: string }>;
}

export interface EndpointChecks {
  endpoint: string;
  url: string;
  checks: NamedCheck[];
}

/** From the draft's own answers when it made that request. */
export async function registrationChecks(draft: ListingDocument, calls: UnpaidCalls, opts: IndexOptions = {}): Promise<EndpointChecks[]> {
  const payable = draft.endpoints.filter((e) => e.payable).slice(0, 16);
  return Promise.all(
    payable.map(async (e) => {
      const url = endpointUrl(draft.baseUrl, e.path);
      const evidence = await probeEndpoint({ method: e.method, path: e.path, url, requestExample: e.requestExample, payable: true }, { allowHosts: opts.allowHosts ?? env().probeAllowHosts, resolver: opts.resolver, deadlineMs: opts.deadlineMs }, calls);
      return { endpoint: `${e.method} ${e.path}`, url, checks: namedChecks(evidence) };
    }),
  );
}

export interface SettlementToIndex {
  settlementId: string;
  caller: string;
  organizationId: string | null;
  read: ReadBazaar;
  settled: Settled & { transaction: string; payer: string | null; settledAt: Date };
}

interface CatalogedEndpoint {
  listingId: string;
  organizationId: string;
  publicationState: string;
  priceAmount: string | null;
  priceAsset: string | null;
  priceNetwork: string | null;
}

export async function catalogedEndpoint(client: Client, resourceUrl: string, method: string): Promise<CatalogedEndpoint | null> {
  const [found] = await rows<CatalogedEndpoint>(
    client,
    `SELECT l."id" AS "listingId", l."organizationId", l."publicationState"::text AS "publicationState",
            e."priceAmount", e."priceAsset", e."priceNetwork"
       FROM "endpoints" e JOIN "listings" l ON l."id" = e."listingId"
      WHERE rtrim(l."baseUrl", '/') || e."path" = $1 AND e."method"::text = $2 AND l."deletedAt" IS NULL
      ORDER BY (l."publicationState" = 'published') DESC, l."createdAt" LIMIT 1`,
    resourceUrl,
    method,
  );
  return found ?? null;
}

/** The probe's rules come with the queued analysis. */
export function readinessOf(doc: ListingDocument): DraftReadiness {
  const r = scoreReadiness(doc, null, CURRENT_RUBRIC, { provisional: true });
  return {
    rubricVersion: r.rubricVersion,
    total: r.total,
    band: r.band,
    provisional: r.provisional,
    rules: r.rules.map((x) => ({ id: x.id, status: x.status, earned: x.earned, max: x.max, reason: x.reason })),
  };
}

function firstFailed(checks: NamedCheck[]): NamedCheck | undefined {
  return checks.find((c) => !c.pass);
}

export async function probeResource(resourceUrl: string, method: string, example: unknown, opts: IndexOptions): Promise<EndpointEvidence> {
  const url = new URL(resourceUrl);
  return probeEndpoint({ method, path: url.pathname, url: resourceUrl, requestExample: example ?? null, payable: true }, { allowHosts: opts.allowHosts ?? env().probeAllowHosts, resolver: opts.resolver, deadlineMs: opts.deadlineMs });
}

export async function indexSettlement(s: SettlementToIndex, opts: IndexOptions = {}): Promise<Receipt> {
  const prisma = await prismaOf(opts.client);
  const method = s.read.method ?? "GET";
  const base = {
    kind: "index" as const, caller: s.caller, organizationId: s.organizationId, resourceUrl: s.read.resourceUrl, method, settlementId: s.settlementId,
    transaction: s.settled.transaction, network: s.settled.network, payer: s.settled.payer, payTo: s.settled.payTo, asset: s.settled.asset, amount: s.settled.amount,
  };
  const rejected = (code: string, words: string, extra: { checks?: NamedCheck[]; listingId?: string | null } = {}) =>
    insertReceipt(prisma, { ...base, ...extra, status: "rejected", rejectedCode: code, rejectedReason: `${code}: ${words}` });

  const allowHosts = opts.allowHosts ?? env().probeAllowHosts;
  const checked = checkTarget(s.read.resourceUrl, allowHosts);
  if (!checked.ok) return rejected("target_refused", `${checked.refusal} (${checked.detail})`);
  const live = await probeResource(s.read.resourceUrl, method, s.read.facts.requestExample, { ...opts, allowHosts });
  const checks = [...namedChecks(live), ...settlementChecks(live, s.settled)];
  const failed = firstFailed(checks);
  if (failed) return rejected(failed.id, failed.detail, { checks });

  const existing = await catalogedEndpoint(prisma, s.read.resourceUrl, method);
  if (existing && s.organizationId !== null && existing.organizationId !== s.organizationId) {
    return rejected("resource_listed_by_another_organisation", "this resource is listed by another organisation; a receipt cannot move or change it", { checks });
  }
  if (!existing && s.organizationId === null) {
    return rejected("caller_has_no_organisation", `${s.caller} settles for no seller organisation, so it can refresh listed resources only`, { checks });
  }

  // A named token never re-prices: that is the owner's settlement to make.
  const listedAtSettledPrice = existing !== null && existing.priceAmount === s.settled.amount && existing.priceNetwork === s.settled.network && existing.priceAsset?.toLowerCase() === s.settled.asset.toLowerCase();
  const drafted = listedAtSettledPrice || (existing && s.organizationId === null) ? null : await draftListingFromTarget(checked.target, { allowHosts, resolver: opts.resolver, deadlineMs: opts.deadlineMs });
  if (drafted && !drafted.ok) return rejected("draft_failed", "refusal" in drafted ? `${drafted.refusal}: ${drafted.detail}` : `${drafted.error}: ${drafted.detail}`, { checks });

  if (existing) {
    if (drafted) {
      const synced = await resyncFromDraft(existing, drafted.draft, s.read.resourceUrl, method, prisma);
      if (!synced.ok) return rejected(synced.code, synced.detail, { checks, listingId: existing.listingId });
    }
    const doc = (await loadListingDocuments(prisma, [existing.listingId])).get(existing.listingId)!;
    const listed = existing.publicationState === "published" || existing.publicationState === "unlisted";
    return insertReceipt(prisma, { ...base, status: "success", listingId: existing.listingId, organizationId: existing.organizationId, checks, readiness: readinessOf(doc), listedAt: listed ? new Date() : null });
  }
  if (!drafted) throw new Error("unreachable: a new resource is always drafted");

  const draft = { ...drafted.draft, endpoints: drafted.draft.endpoints.map((e) => (drafted.draft.baseUrl.replace(/\/+$/, "") + e.path === s.read.resourceUrl ? { ...e, method: method as typeof e.method } : e)) };
  const valid = validateListingDocument(draft);
  if (!valid.ok) return rejected("draft_invalid", `${valid.errors[0].pointer}: ${valid.errors[0].message}`, { checks });
  const saved = await writeListing(valid.value, { organizationId: s.organizationId!, source: `receipt:${s.read.resourceUrl}`, publicationState: "published", uniqueSlug: "suffix" });
  const receipt = await insertReceipt(prisma, { ...base, status: "success", listingId: saved.id, checks, readiness: readinessOf(valid.value), listedAt: new Date() });
  await onListingPublished(saved.id, `system:receipt:${s.caller}`, prisma).catch(() => undefined);
  return receipt;
}

type Synced = { ok: true; changed: boolean } | { ok: false; code: string; detail: string };

/** The replaced price stays in the receipts. */
export async function resyncFromDraft(existing: CatalogedEndpoint, draft: ListingDocument, resourceUrl: string, method: string, client: Client): Promise<Synced> {
  const path = new URL(resourceUrl).pathname;
  const liveEndpoint = draft.endpoints.find((e) => draft.baseUrl.replace(/\/+$/, "") + e.path === resourceUrl && e.method === method) ?? draft.endpoints.find((e) => resourceUrl.endsWith(e.path) && e.method === method);
  const machine = liveEndpoint?.pricing?.machine ?? null;
  if (!liveEndpoint || !machine) return { ok: false, code: "draft_failed", detail: `the draft of ${resourceUrl} has no priced ${method} endpoint` };
  const same = existing.priceAmount === machine.amount && existing.priceAsset?.toLowerCase() === machine.asset.toLowerCase() && existing.priceNetwork === machine.network;
  if (same) return { ok: true, changed: false };
  const doc = (await loadListingDocuments(client, [existing.listingId])).get(existing.listingId);
  if (!doc) return { ok: false, code: "draft_failed", detail: `listing ${existing.listingId} is gone` };
  const endpoints = doc.endpoints.map((e) =>
    e.method === method && (doc.baseUrl.replace(/\/+$/, "") + e.path === resourceUrl || e.path === path)
      ? { ...e, pricing: { ...(e.pricing ?? { label: null, usd: null, mode: null, dynamic: null, machine: null }), machine, usd: liveEndpoint.pricing?.usd ?? e.pricing?.usd ?? null, label: liveEndpoint.pricing?.label ?? e.pricing?.label ?? null } }
      : e,
  );
  const valid = validateListingDocument({ ...doc, endpoints });
  if (!valid.ok) return { ok: false, code: "draft_invalid", detail: `${valid.errors[0].pointer}: ${valid.errors[0].message}` };
  await writeListing(valid.value, { organizationId: existing.organizationId, listingId: existing.listingId });
  return { ok: true, changed: true };
}
