import { formatUnits } from "viem";

export interface LedgerRowView {
  id: string;
  createdAt: Date;
  status: "settled" | "failed" | "unconfirmed" | "rejected" | "unmeasured";
  reason: string | null;
  /** The reason in words (the binding or blame check that decided it). */
  detail?: string | null;
  payer: string;
  house: boolean;
  advertisedAmount: string;
  quotedPayTo: string | null;
  network: string;
  transactionId: string | null;
  blockNumber: bigint | null;
  chainFrom: string | null;
  chainTo: string | null;
  chainAmount: string | null;
  httpStatus: number | null;
  latencyMs: number | null;
  /** The asset's decimals; null when unknown (the amount is then shown in atomic units). */
  decimals: number | null;
  endpoint: { method: string; path: string } | null;
  /** The row this one corrects, and the row that corrects this one (lib/ledger/correct.ts): counted as the correction only. */
  correctsId?: string | null;
  correctedBy?: string | null;
}

const STATUS_STYLE: Record<LedgerRowView["status"], string> = {
  settled: "bg-emerald-50 text-emerald-800",
  failed: "bg-red-50 text-red-800",
  unconfirmed: "bg-amber-50 text-amber-800",
  rejected: "bg-slate-100 text-slate-700",
  unmeasured: "bg-slate-100 text-slate-700",
};

function amount(atomic: string, decimals: number | null): string {
  return decimals === null ? `${atomic} atomic` : formatUnits(BigInt(atomic), decimals);
}

/** 0x1234…abcd, the whole value in the title (and selectable in a copy). */
function Hex({ value, label }: { value: string | null; label: string }) {
  if (!value) return <span className="text-muted">—</span>;
  const short = /^0x[0-9a-fA-F]{16,}$/.test(value) ? `${value.slice(0, 6)}…${value.slice(-4)}` : value;
  return (
    <span className="font-mono text-xs" title={`${label}: ${value}`}>
      {short}
    </span>
  );
}

/**
 * The settlement ledger of one listing, as a moderator audits it: each relayed payment attempt with
 * what the chain says (transaction, block, from, to, amount), never the seller's claim; the quote it
 * answered beside it, so an overcharge or a wrong payee shows in the row.
 */
export function LedgerTable({ rows, counts, shown }: { rows: LedgerRowView[]; counts: Partial<Record<LedgerRowView["status"], number>>; shown: number }) {
  const total = (counts.settled ?? 0) + (counts.failed ?? 0) + (counts.unconfirmed ?? 0) + (counts.rejected ?? 0) + (counts.unmeasured ?? 0);
  if (total === 0) return <p className="mt-2 text-sm text-muted">No payment has been relayed for this listing yet. Buyers pay through the router (/router/call/…); each attempt appears here once the chain has been read for it.</p>;
  return (
    <>
      <p className="mt-1 text-sm text-muted">
        {total} attempt{total === 1 ? "" : "s"}: {counts.settled ?? 0} settled on chain, {counts.failed ?? 0} failed, {counts.unconfirmed ?? 0} waiting for the chain{counts.rejected ? `, ${counts.rejected} refused for the buyer's own fault` : ""}{counts.unmeasured ? `, ${counts.unmeasured} unmeasured (neither party's fault could be proven)` : ""}.
        {total > shown && ` The newest ${shown} below.`} Amounts and recipients are read from the chain, never from the seller.
      </p>
      <div className="mt-2 relative overflow-x-auto">
        <table className="w-full min-w-[56rem] text-sm">
          <thead className="text-left text-xs uppercase tracking-wide text-muted">
            <tr>
              <th className="py-1.5 pr-2">When</th>
              <th className="py-1.5 pr-2">Status</th>
              <th className="py-1.5 pr-2">Endpoint</th>
              <th className="py-1.5 pr-2">Transaction</th>
              <th className="py-1.5 pr-2">Block</th>
              <th className="py-1.5 pr-2">From</th>
              <th className="py-1.5 pr-2">To</th>
              <th className="py-1.5 pr-2 text-right">Amount (chain)</th>
              <th className="py-1.5 pr-2 text-right">Quoted</th>
              <th className="py-1.5 text-right">Seller</th>
            </tr>
          </thead>
          <tbody className="divide-y divide-line">
            {rows.map((r) => {
              const amountDiffers = r.chainAmount !== null && r.chainAmount !== r.advertisedAmount;
              const payeeDiffers = r.chainTo !== null && r.quotedPayTo !== null && r.chainTo !== r.quotedPayTo;
              return (
                <tr key={r.id} className="align-top">
                  <td className="whitespace-nowrap py-1.5 pr-2">
                    <time dateTime={r.createdAt.toISOString()}>{r.createdAt.toISOString().slice(0, 19).replace("T", " ")}</time>
                  </td>
                  <td className="py-1.5 pr-2">
                    <span className={`rounded px-1.5 py-0.5 text-xs font-medium ${STATUS_STYLE[r.status]}`}>{r.status}</span>
                    {r.reason && <span className="ml-1 font-mono text-xs text-muted" title={r.detail ?? undefined}>{r.reason}</span>}
                    {r.house && <span className="ml-1 rounded bg-slate-100 px-1 text-xs">house</span>}
                    {r.correctsId && <span className="ml-1 rounded bg-slate-100 px-1 text-xs" title={`corrects ${r.correctsId}`}>correction</span>}
                    {r.correctedBy && <span className="ml-1 rounded bg-slate-100 px-1 text-xs line-through" title={`corrected by ${r.correctedBy}`}>corrected</span>}
                  </td>
                  <td className="whitespace-nowrap py-1.5 pr-2 font-mono text-xs">{r.endpoint ? `${r.endpoint.method} ${r.endpoint.path}` : "—"}</td>
                  <td className="py-1.5 pr-2"><Hex value={r.transactionId} label="transaction" /></td>
                  <td className="py-1.5 pr-2 font-mono text-xs tabular-nums">{r.blockNumber === null ? "—" : r.blockNumber.toString()}</td>
                  <td className="py-1.5 pr-2"><Hex value={r.chainFrom ?? r.payer} label={r.chainFrom ? "from (chain)" : "payer (signed authorization)"} /></td>
                  <td className={`py-1.5 pr-2 ${payeeDiffers ? "text-red-800" : ""}`}>
                    <Hex value={r.chainTo} label="to (chain)" />
                    {payeeDiffers && <span className="block text-xs">quoted <Hex value={r.quotedPayTo} label="quoted payTo" /></span>}
                  </td>
                  <td className={`py-1.5 pr-2 text-right font-mono text-xs tabular-nums ${amountDiffers ? "text-red-800" : ""}`}>{r.chainAmount === null ? "—" : amount(r.chainAmount, r.decimals)}</td>
                  <td className="py-1.5 pr-2 text-right font-mono text-xs tabular-nums">{amount(r.advertisedAmount, r.decimals)}</td>
                  <td className="whitespace-nowrap py-1.5 text-right text-xs tabular-nums">{r.httpStatus ?? "—"}{r.latencyMs !== null && <span className="text-muted"> · {r.latencyMs} ms</span>}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </>
  );
}
