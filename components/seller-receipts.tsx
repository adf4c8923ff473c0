/** The seller's bazaar receipts (docs/PROBE.md "Receipts"): each one, its named checks, and the time from first settlement to listed. */
import type { ReceiptView } from "@/lib/surfaces/seller";

const KIND_WORDS: Record<string, string> = { verify: "verify", settle: "settlement", index: "indexed", register: "registration", sync: "re-sync" };
const STATUS_STYLE: Record<string, string> = { success: "bg-emerald-50 text-emerald-900", processing: "bg-sky-50 text-sky-900", rejected: "bg-red-50 text-red-900" };

function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

export function SellerReceipts({ items, firstSettlementToListedMs }: { items: ReceiptView[]; firstSettlementToListedMs: number | null }) {
  return (
    <section aria-labelledby="receipts-h" data-testid="seller-receipts" className="rounded-xl border border-line bg-white p-5">
      <h2 id="receipts-h" className="text-lg font-semibold">Receipts</h2>
      <p className="text-sm text-muted">
        What the facilitator answered when a payment carried your bazaar extension, and why your resource was or was not listed.
      </p>
      <p className="mt-2 text-sm" data-testid="settlement-to-listed">
        Time from first settlement to listed:{" "}
        <strong>{firstSettlementToListedMs === null ? "not listed by a settlement yet" : seconds(firstSettlementToListedMs)}</strong>
      </p>
      {items.length === 0 ? (
        <p className="mt-2 text-sm text-muted">No receipts yet: settle a payment through Tollgate&apos;s facilitator with the bazaar extension in your 402.</p>
      ) : (
        <ol className="mt-3 divide-y divide-line text-sm" aria-label="Receipts">
          {items.map((r) => (
            <li key={r.id} className="py-2">
              <div className="flex flex-wrap items-center gap-2">
                <time dateTime={r.createdAt} className="w-40 text-muted">{r.createdAt.slice(0, 19).replace("T", " ")}</time>
                <span className="font-medium">{KIND_WORDS[r.kind] ?? r.kind}</span>
                <span className={`rounded px-1.5 py-0.5 text-xs ${STATUS_STYLE[r.status] ?? ""}`}>{r.status}</span>
                {r.method && r.resourceUrl && <code className="break-all text-xs">{r.method} {r.resourceUrl}</code>}
                {r.amount && <span className="text-xs text-muted">amount {r.amount}</span>}
              </div>
              {r.rejectedReason && <p className="mt-1 text-red-900">{r.rejectedReason}</p>}
              {r.transaction && <p className="mt-1 break-all font-mono text-xs text-muted">tx {r.transaction}</p>}
              {r.checks.length > 0 && (
                <ul className="mt-1 flex flex-wrap gap-x-3 text-xs">
                  {r.checks.map((c) => (
                    <li key={c.id} title={c.detail} className={c.pass ? "text-emerald-800" : "text-red-800"}>
                      {c.pass ? "✓" : "✗"} {c.id}
                    </li>
                  ))}
                </ul>
              )}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
