/**
 * The receipts sweep (docs/PROBE.md "Receipts"): each owner-listed resource called once unpaid; a new price re-syncs
 * the listing with a `sync` receipt, a failing 402 gets a rejected one.
 */
import { checkTarget } from "@/lib/net";
import { env } from "@/lib/env";
import { draftListingFromTarget } from "@/lib/discovery/import";
import type { Tick } from "@/lib/scheduler";
import { prismaOf, rows } from "@/lib/sql";
import { catalogedEndpoint, probeResource, resyncFromDraft, type IndexOptions } from "./index-resource";
import { insertReceipt, namedChecks } from "./receipts";

export const RECEIPTS_SWEEP_INTERVAL_MS = 60_000;

interface Indexed {
  listingId: string;
  organizationId: string | null;
  resourceUrl: string;
  method: string;
}

export interface ReceiptsSweep {
  checked: number;
  changed: string[];
  rejected: string[];
}

export async function syncIndexedListings(opts: IndexOptions = {}): Promise<ReceiptsSweep> {
  const prisma = await prismaOf(opts.client);
  const allowHosts = opts.allowHosts ?? env().probeAllowHosts;
  const indexed = await rows<Indexed>(
    prisma,
    `SELECT DISTINCT ON (r."listingId", r."resourceUrl", r."method") r."listingId", r."organizationId", r."resourceUrl", r."method"
       FROM "bazaar_receipts" r JOIN "listings" l ON l."id" = r."listingId"
      WHERE r."kind" = 'index' AND r."status" = 'success' AND r."caller" LIKE 'key:%' AND l."deletedAt" IS NULL
      ORDER BY r."listingId", r."resourceUrl", r."method", r."createdAt" DESC`,
  );
  const out: ReceiptsSweep = { checked: 0, changed: [], rejected: [] };
  for (const x of indexed) {
    out.checked++;
    const base = { kind: "sync" as const, caller: "sweep", organizationId: x.organizationId, listingId: x.listingId, resourceUrl: x.resourceUrl, method: x.method };
    const checked = checkTarget(x.resourceUrl, allowHosts);
    const live = checked.ok ? await probeResource(x.resourceUrl, x.method, null, { ...opts, allowHosts }) : null;
    const checks = live ? namedChecks(live) : [];
    const failed = !checked.ok ? { id: "target_refused", detail: `${checked.refusal} (${checked.detail})` } : checks.find((c) => !c.pass);
    const existing = await catalogedEndpoint(prisma, x.resourceUrl, x.method);
    if (!existing) continue;
    const offer = live?.challenge.requirements?.find((r) => r.network === existing.priceNetwork && r.asset.toLowerCase() === existing.priceAsset?.toLowerCase()) ?? live?.challenge.requirements?.[0];
    if (failed || !checked.ok || !offer) {
      // One rejected receipt per change of state, not per sweep.
      const [last] = await rows<{ status: string; rejectedCode: string | null }>(prisma, `SELECT "status", "rejectedCode" FROM "bazaar_receipts" WHERE "kind" = 'sync' AND "listingId" = $1 AND "resourceUrl" = $2 ORDER BY "createdAt" DESC LIMIT 1`, x.listingId, x.resourceUrl);
      const code = failed?.id ?? "returns_402";
      if (last?.status !== "rejected" || last.rejectedCode !== code) {
        await insertReceipt(prisma, { ...base, checks, status: "rejected", rejectedCode: code, rejectedReason: `${code}: ${failed?.detail ?? "the live 402 offers no price"}` });
      }
      out.rejected.push(x.listingId);
      continue;
    }
    if (offer.amount === existing.priceAmount && offer.asset.toLowerCase() === existing.priceAsset?.toLowerCase() && offer.network === existing.priceNetwork) continue;
    const drafted = await draftListingFromTarget(checked.target, { allowHosts, resolver: opts.resolver, deadlineMs: opts.deadlineMs });
    const synced = drafted.ok ? await resyncFromDraft(existing, drafted.draft, x.resourceUrl, x.method, prisma) : { ok: false as const, code: "draft_failed", detail: drafted.detail };
    if (!synced.ok) {
      await insertReceipt(prisma, { ...base, checks, status: "rejected", rejectedCode: synced.code, rejectedReason: `${synced.code}: ${synced.detail}` });
      out.rejected.push(x.listingId);
      continue;
    }
    await insertReceipt(prisma, { ...base, checks, status: "success", network: offer.network, asset: offer.asset, payTo: offer.payTo, amount: offer.amount, listedAt: new Date() });
    if (synced.changed) out.changed.push(x.listingId);
  }
  return out;
}

export const receiptTicks: Tick[] = [{ name: "receipts.sync", intervalMs: RECEIPTS_SWEEP_INTERVAL_MS, run: async () => void (await syncIndexedListings()) }];
