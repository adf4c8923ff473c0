/**
 * The facilitator's bazaar side (docs/PROBE.md "Receipts"): EXTENSION-RESPONSES for verify and settle, each
 * receipted; a settled resource is indexed after the answer.
 */
import type { SettleResponse, VerifyResponse } from "@x402/core/types";
import type { FacilitatorRequest } from "@/lib/chain/facilitator";
import { db } from "@/lib/db";
import { indexSettlement, type IndexOptions } from "@/lib/intake/index-resource";
import { insertReceipt, type Receipt } from "@/lib/intake/receipts";
import { isRejection, readPayloadBazaar, type BazaarExtensionResponse } from "@/lib/x402/bazaar-receipt";

const pending = new Set<Promise<unknown>>();
const byResource = new Map<string, Promise<unknown>>();

/** Waits for every indexing started in this process. */
export async function indexingSettled(): Promise<void> {
  while (pending.size > 0) await Promise.allSettled([...pending]);
}

/** An API key's maker's organisation; a named token has none. */
async function organizationOf(caller: string): Promise<string | null> {
  if (!caller.startsWith("key:")) return null;
  const prisma = await db();
  const key = await prisma.apiKey.findUnique({ where: { id: caller.slice(4) }, select: { createdBy: { select: { organizationId: true } } } });
  return key?.createdBy.organizationId ?? null;
}

const payerOf = (r: { payer?: string }) => r.payer ?? null;

export async function bazaarOnVerify(body: FacilitatorRequest, result: VerifyResponse, caller: string): Promise<BazaarExtensionResponse | null> {
  const read = readPayloadBazaar(body.paymentPayload);
  if (read === null) return null;
  const req = body.paymentRequirements;
  const common = { kind: "verify" as const, caller, network: req.network, payTo: req.payTo, asset: req.asset, amount: req.amount, payer: payerOf(result) };
  const prisma = await db();
  if (isRejection(read)) {
    await insertReceipt(prisma, { ...common, status: "rejected", rejectedCode: read.code, rejectedReason: read.reason });
    return { status: "rejected", rejectedReason: read.reason };
  }
  await insertReceipt(prisma, { ...common, status: "processing", resourceUrl: read.resourceUrl, method: read.method });
  return { status: "processing" };
}

export async function bazaarOnSettle(body: FacilitatorRequest, result: SettleResponse, caller: string, opts: IndexOptions = {}): Promise<BazaarExtensionResponse | null> {
  const read = readPayloadBazaar(body.paymentPayload);
  if (read === null) return null;
  const req = body.paymentRequirements;
  const settledAt = new Date();
  const organizationId = await organizationOf(caller);
  const common = {
    kind: "settle" as const, caller, organizationId, network: req.network, payTo: req.payTo, asset: req.asset, amount: result.amount ?? req.amount,
    payer: payerOf(result), transaction: result.success && result.transaction ? result.transaction : null,
  };
  const prisma = await db();
  if (isRejection(read)) {
    await insertReceipt(prisma, { ...common, status: "rejected", rejectedCode: read.code, rejectedReason: read.reason, settledAt: result.success ? settledAt : null });
    return { status: "rejected", rejectedReason: read.reason };
  }
  if (!result.success) {
    const reason = `settlement_failed: the payment did not settle (${result.errorReason ?? "no reason given"}), so nothing is cataloged`;
    await insertReceipt(prisma, { ...common, status: "rejected", rejectedCode: "settlement_failed", rejectedReason: reason, resourceUrl: read.resourceUrl, method: read.method });
    return { status: "rejected", rejectedReason: reason };
  }
  let receipt: Receipt;
  try {
    receipt = await insertReceipt(prisma, { ...common, status: "processing", resourceUrl: read.resourceUrl, method: read.method, settledAt });
  } catch {
    // The unique index: this transaction was receipted before (a replayed settlement).
    const reason = `settlement_replayed: transaction ${result.transaction} already has a receipt`;
    return { status: "rejected", rejectedReason: reason };
  }
  // One indexing per resource at a time in this process.
  const before = byResource.get(read.resourceUrl) ?? Promise.resolve();
  const job = before.then(() => indexSettlement(
    { settlementId: receipt.id, caller, organizationId, read, settled: { transaction: result.transaction, network: req.network, asset: req.asset, payTo: req.payTo, amount: common.amount, payer: common.payer, settledAt } },
    opts,
  )).catch((e: unknown) =>
    insertReceipt(prisma, {
      kind: "index", status: "rejected", rejectedCode: "index_failed", rejectedReason: `index_failed: ${e instanceof Error ? e.message : String(e)}`.slice(0, 2000),
      caller, organizationId, resourceUrl: read.resourceUrl, method: read.method, settlementId: receipt.id,
    }).catch(() => undefined),
  );
  pending.add(job);
  byResource.set(read.resourceUrl, job);
  void job.finally(() => {
    pending.delete(job);
    if (byResource.get(read.resourceUrl) === job) byResource.delete(read.resourceUrl);
  });
  return { status: "processing" };
}
