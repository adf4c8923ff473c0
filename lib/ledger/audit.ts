/**
 * `npm run ledger:audit`: every settled row re-read from the chain and held to the binding (docs/ROUTER.md
 * "Binding"). Read-only.
 */
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { readSettlement, type ReadOptions } from "./confirm-payment";

export interface AuditFinding {
  id: string;
  listingId: string;
  transaction: string | null;
  network: string;
  /** `unbound`: no binding on chain; `unreadable`: chain not read; `mismatch`: bound, to something else. */
  kind: "unbound" | "unreadable" | "mismatch";
  detail: string;
}

export interface AuditReport {
  checked: number;
  bound: number;
  findings: AuditFinding[];
}

const BATCH = 200;

/** House rows included, oldest first. */
export async function auditLedger(prisma: PrismaClient, options: ReadOptions = {}): Promise<AuditReport> {
  const report: AuditReport = { checked: 0, bound: 0, findings: [] };
  let after: string | undefined;
  for (;;) {
    const rows = await prisma.routerPayment.findMany({
      where: { status: "settled" },
      orderBy: { id: "asc" },
      take: BATCH,
      ...(after ? { cursor: { id: after }, skip: 1 } : {}),
      select: { id: true, listingId: true, transactionId: true, network: true, asset: true, payer: true, authorizationNonce: true, quotedPayTo: true, advertisedAmount: true, relayedAt: true, chainAmount: true, chainTo: true, blockNumber: true, transferLogIndex: true },
    });
    if (rows.length === 0) return report;
    for (const r of rows) {
      report.checked++;
      const base = { id: r.id, listingId: r.listingId, transaction: r.transactionId, network: r.network };
      if (!r.transactionId) {
        report.findings.push({ ...base, kind: "unbound", detail: "settled without a transaction" });
        continue;
      }
      const verdict = await readSettlement(
        { transaction: r.transactionId, network: r.network, asset: r.asset, payer: r.payer, nonce: r.authorizationNonce, payTo: r.quotedPayTo, amount: r.advertisedAmount, notBefore: r.relayedAt },
        options,
      );
      if (verdict.status === "unconfirmed") report.findings.push({ ...base, kind: "unreadable", detail: verdict.detail });
      else if (verdict.status === "failed") report.findings.push({ ...base, kind: "unbound", detail: verdict.detail });
      else {
        const c = verdict.chain;
        const differs = [
          r.chainAmount !== c.amount && `amount ${r.chainAmount} recorded, ${c.amount} on chain`,
          r.chainTo !== c.to && `recipient ${r.chainTo} recorded, ${c.to} on chain`,
          r.blockNumber !== c.blockNumber && `block ${r.blockNumber} recorded, ${c.blockNumber} on chain`,
          r.transferLogIndex !== null && r.transferLogIndex !== c.logIndex && `log index ${r.transferLogIndex} recorded, ${c.logIndex} on chain`,
        ].filter(Boolean);
        if (differs.length > 0) report.findings.push({ ...base, kind: "mismatch", detail: differs.join("; ") });
        else report.bound++;
      }
    }
    after = rows[rows.length - 1].id;
  }
}

export function formatAudit(report: AuditReport): string {
  const lines = [`${report.checked} settled row${report.checked === 1 ? "" : "s"} checked: ${report.bound} bound on chain, ${report.findings.length} not.`];
  for (const f of report.findings) lines.push(`  ${f.kind.padEnd(10)} ${f.id} (listing ${f.listingId}, ${f.network} ${f.transaction ?? "no transaction"}): ${f.detail}`);
  return lines.join("\n") + "\n";
}
