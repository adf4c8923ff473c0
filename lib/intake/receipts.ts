/** Bazaar receipts (docs/PROBE.md "Receipts"), insert-only, and the named checks of an unpaid answer. */
import crypto from "node:crypto";
import type { EndpointEvidence } from "@/lib/evidence";
import { isUnprobeable } from "@/lib/probe";
import type { BazaarStatus } from "@/lib/x402/bazaar-receipt";
import { isObject } from "@/lib/x402/json";
import { rows, type Client } from "@/lib/sql";

export type ReceiptKind = "verify" | "settle" | "index" | "register" | "sync";
export type CheckId = "reachable" | "returns_402" | "has_bazaar_extension" | "parses" | "method_matches" | "payto_matches" | "price_matches";

export interface NamedCheck {
  id: CheckId;
  pass: boolean;
  detail: string;
}

export interface ReceiptInput {
  kind: ReceiptKind;
  status: BazaarStatus;
  rejectedCode?: string | null;
  rejectedReason?: string | null;
  caller?: string | null;
  organizationId?: string | null;
  listingId?: string | null;
  resourceUrl?: string | null;
  method?: string | null;
  transaction?: string | null;
  network?: string | null;
  payer?: string | null;
  payTo?: string | null;
  asset?: string | null;
  amount?: string | null;
  settlementId?: string | null;
  checks?: NamedCheck[];
  readiness?: unknown;
  settledAt?: Date | null;
  listedAt?: Date | null;
}

export interface Receipt extends Required<Omit<ReceiptInput, "readiness">> {
  id: string;
  readiness: unknown;
  createdAt: Date;
}

const COLUMNS = ["kind", "status", "rejectedCode", "rejectedReason", "caller", "organizationId", "listingId", "resourceUrl", "method", "transaction", "network", "payer", "payTo", "asset", "amount", "settlementId"] as const;

/** The table refuses UPDATE and DELETE. */
export async function insertReceipt(client: Client, r: ReceiptInput): Promise<Receipt> {
  const id = `rcpt_${crypto.randomUUID()}`;
  const values = COLUMNS.map((c) => (r[c] ?? null) as string | null);
  const [row] = await rows<Receipt>(
    client,
    `INSERT INTO "bazaar_receipts" ("id", ${COLUMNS.map((c) => `"${c}"`).join(", ")}, "checks", "readiness", "settledAt", "listedAt")
     VALUES ($1, ${COLUMNS.map((_, i) => `$${i + 2}`).join(", ")}, $${COLUMNS.length + 2}::jsonb, $${COLUMNS.length + 3}::jsonb, $${COLUMNS.length + 4}::timestamptz AT TIME ZONE 'UTC', $${COLUMNS.length + 5}::timestamptz AT TIME ZONE 'UTC')
     RETURNING *`,
    id,
    ...values,
    JSON.stringify(r.checks ?? []),
    r.readiness === undefined ? null : JSON.stringify(r.readiness),
    r.settledAt?.toISOString() ?? null,
    r.listedAt?.toISOString() ?? null,
  );
  return row;
}

/** Newest first, with the time from first settlement to listed. */
export async function receiptsOfListing(client: Client, listingId: string, limit = 50): Promise<{ receipts: Receipt[]; firstSettlementToListedMs: number | null }> {
  const receipts = await rows<Receipt>(
    client,
    `SELECT * FROM "bazaar_receipts"
      WHERE "listingId" = $1
         OR "id" IN (SELECT "settlementId" FROM "bazaar_receipts" WHERE "listingId" = $1 AND "settlementId" IS NOT NULL)
      ORDER BY "createdAt" DESC, "id" LIMIT $2`,
    listingId,
    limit,
  );
  const [span] = await rows<{ settled: Date | null; listed: Date | null }>(
    client,
    `SELECT (SELECT min(s."settledAt") FROM "bazaar_receipts" i JOIN "bazaar_receipts" s ON s."id" = i."settlementId"
              WHERE i."listingId" = $1 AND i."kind" = 'index') AS "settled",
            (SELECT min(i."listedAt") FROM "bazaar_receipts" i WHERE i."listingId" = $1 AND i."kind" = 'index' AND i."status" = 'success') AS "listed"`,
    listingId,
  );
  const ms = span?.settled && span.listed ? new Date(span.listed).getTime() - new Date(span.settled).getTime() : null;
  return { receipts, firstSettlementToListedMs: ms };
}

function liveBazaar(e: EndpointEvidence): Record<string, unknown> | null {
  const pr = e.challenge.x402;
  if (!isObject(pr) || !isObject(pr.extensions) || !isObject(pr.extensions.bazaar)) return null;
  return pr.extensions.bazaar;
}

/** An MCP tool is called with POST. */
export function liveBazaarMethod(e: EndpointEvidence): string | null {
  const input = liveBazaar(e)?.info;
  const i = isObject(input) && isObject(input.input) ? input.input : null;
  if (!i) return null;
  if (i.type === "mcp") return "POST";
  return typeof i.method === "string" ? i.method.toUpperCase() : null;
}

/** reachable, returns_402, has_bazaar_extension, parses (valid, no C5 failure), method_matches. */
export function namedChecks(e: EndpointEvidence): NamedCheck[] {
  const c5 = e.findings.filter((f) => f.check === "C5" && f.severity === "fail");
  const declared = liveBazaarMethod(e);
  const status = e.status;
  return [
    { id: "reachable", pass: e.reachable, detail: e.reachable ? `answered ${status}` : (e.findings.find((f) => f.check === "R1")?.message ?? "no answer") },
    {
      id: "returns_402",
      pass: status === 402,
      detail: status === 402 ? "the unpaid request answers 402" : isUnprobeable(status) ? `unprobeable: answers ${status} because it validates the input before 402` : `answers ${status ?? "nothing"} instead of 402`,
    },
    { id: "has_bazaar_extension", pass: liveBazaar(e) !== null, detail: liveBazaar(e) ? "the 402 carries extensions.bazaar" : "the 402 carries no bazaar extension" },
    {
      id: "parses",
      pass: e.challenge.valid && c5.length === 0,
      detail: !e.challenge.valid ? "the payment challenge is not valid enough to pay" : c5.length ? `${c5[0].code}: ${c5[0].message}` : "the challenge and its bazaar extension parse",
    },
    {
      id: "method_matches",
      pass: declared !== null && declared === e.method.toUpperCase(),
      detail: declared === null ? "the bazaar extension declares no method" : declared === e.method.toUpperCase() ? `declares ${declared}` : `declares ${declared}, called with ${e.method}`,
    },
  ];
}

export interface Settled {
  network: string;
  asset: string;
  payTo: string;
  amount: string;
}

/**
 * The live 402 offers the payTo and price that were paid: no receipt for a resource that does not take the payment,
 * and no stale settlement re-lists an old price.
 */
export function settlementChecks(e: EndpointEvidence, s: Settled): NamedCheck[] {
  const offers = e.challenge.requirements ?? [];
  const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  const toPayee = offers.filter((r) => same(r.payTo, s.payTo) && r.network === s.network);
  const priced = toPayee.find((r) => same(r.asset, s.asset) && r.amount === s.amount);
  return [
    {
      id: "payto_matches",
      pass: toPayee.length > 0,
      detail: toPayee.length ? `the live 402 pays ${s.payTo} on ${s.network}` : `the live 402 does not pay ${s.payTo} on ${s.network} (it offers ${offers.map((r) => r.payTo).join(", ") || "nothing"})`,
    },
    {
      id: "price_matches",
      pass: priced !== undefined,
      detail: priced ? `the live price is the settled ${s.amount}` : `settled ${s.amount} of ${s.asset}; the live 402 asks ${toPayee.map((r) => r.amount).join(", ") || "no such offer"}`,
    },
  ];
}
