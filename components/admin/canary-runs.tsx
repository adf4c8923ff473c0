import Link from "next/link";
import { formatUsdcAtomic } from "@/lib/format";

/** One canary call's evidence (canary_samples; docs/CANARY.md "A run"). */
export interface CanarySampleView {
  id: string;
  method: string;
  path: string;
  state: "pending" | "completed";
  outcome: "pass" | "degraded" | "broken" | null;
  reason: string | null;
  listedAmount: string | null;
  quotedAmount: string | null;
  quotedPayTo: string | null;
  chainAmount: string | null;
  chainTo: string | null;
  chainNetwork: string | null;
  blockNumber: string | null;
  transactionId: string | null;
  paymentStatus: string | null;
  httpStatus: number | null;
  ttlbMs: number | null;
  responseBytes: number | null;
  contentType: string | null;
  outputSha256: string | null;
  schemaValid: boolean | null;
  replay: string | null;
  replayStatus: number | null;
}

export interface CanaryRunView {
  id: string;
  trigger: string;
  requestedBy: string;
  /** Why a listing change queued it (what changed); null for other triggers. */
  requestReason: string | null;
  state: "queued" | "running" | "done" | "deferred";
  outcome: "verified" | "unverified" | "degraded" | null;
  reason: string | null;
  attempts: number;
    reserved: string | null;
  createdAt: Date;
  finishedAt: Date | null;
  samples: CanarySampleView[];
  /** On the desk across listings: the run's listing and what its budget has left today. */
  listing?: { id: string; title: string; verificationStatus: string; canarySuspendedAt: Date | null };
  budgetLeftForListing?: string;
}

const RUN_STYLE: Record<string, string> = {
  verified: "bg-emerald-50 text-emerald-800",
  degraded: "bg-red-50 text-red-800",
  unverified: "bg-slate-100 text-slate-700",
  deferred: "bg-amber-50 text-amber-800",
  queued: "bg-sky-50 text-sky-900",
  running: "bg-indigo-50 text-indigo-900",
};

const SAMPLE_STYLE: Record<string, string> = { pass: "text-emerald-800", degraded: "text-red-800", broken: "text-red-800" };

const when = (d: Date) => d.toISOString().slice(0, 16).replace("T", " ");

/** The canary's runs, each with every call's evidence and transaction (the listing page and the desk). */
export function CanaryRunList({ runs }: { runs: CanaryRunView[] }) {
  return (
    <ul className="mt-3 space-y-3" data-testid="canary-runs">
      {runs.map((r) => {
        const label = r.state === "done" ? (r.outcome ?? "done") : r.state;
        return (
          <li key={r.id} className="min-w-0 rounded-lg border border-line bg-white p-3 text-sm" data-testid="canary-run" data-run-state={r.state} data-run-outcome={r.outcome ?? ""}>
            <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
              <time dateTime={r.createdAt.toISOString()} className="text-muted">{when(r.createdAt)}</time>
              {r.listing && (
                <Link href={`/admin/listings/${r.listing.id}`} className="font-medium text-brand underline" data-testid="canary-run-listing">{r.listing.title}</Link>
              )}
              <span className={`rounded px-1.5 py-0.5 text-xs font-semibold ${RUN_STYLE[label] ?? ""}`}>{r.state === "done" ? `done: ${label}` : label}</span>
              <span>{r.trigger}</span>
              <span className="text-muted">attempt {r.attempts}</span>
              {r.reserved !== null && <span className="text-muted">reserved <span className="font-mono" title={`${r.reserved} atomic units`}>{formatUsdcAtomic(r.reserved)}</span></span>}
            </div>
            {r.requestReason && <p className="mt-1 break-words text-amber-900" data-testid="canary-run-request-reason">Queued first because {r.requestReason}</p>}
            {r.reason && <p className="mt-1 break-words text-slate-700" data-testid="canary-run-reason">{r.reason}</p>}
            {r.listing && (
              <p className="mt-1 text-xs text-muted">
                Listing now {r.listing.verificationStatus}{r.listing.canarySuspendedAt ? ", canary suspended" : ""}
                {r.budgetLeftForListing !== undefined && <> · its budget left today <span className="font-mono" title={`${r.budgetLeftForListing} atomic units`}>{formatUsdcAtomic(r.budgetLeftForListing)}</span></>}
              </p>
            )}
            {r.samples.length > 0 && (
              <div className="mt-2 relative overflow-x-auto">
                <table className="w-full min-w-[52rem] text-xs">
                  <thead className="text-left uppercase tracking-wide text-muted">
                    <tr><th className="py-1 pr-2">Endpoint</th><th className="py-1 pr-2">Outcome</th><th className="py-1 pr-2">Listed · quoted · on chain</th><th className="py-1 pr-2">Paid to</th><th className="py-1 pr-2">Status · TTLB · bytes</th><th className="py-1 pr-2">Schema</th><th className="py-1 pr-2">Replay</th><th className="py-1 pr-2">Transaction</th></tr>
                  </thead>
                  <tbody className="divide-y divide-line">
                    {r.samples.map((s) => (
                      <tr key={s.id} className="align-top" data-testid="canary-sample">
                        <td className="py-1 pr-2 font-mono">{s.method} {s.path}</td>
                        <td className="py-1 pr-2"><span className={`font-medium ${s.outcome ? SAMPLE_STYLE[s.outcome] : ""}`}>{s.state === "pending" ? "pending" : (s.outcome ?? "no verdict")}</span>{s.reason && s.reason !== s.outcome && <> <span className="text-muted">{s.reason}</span></>}</td>
                        <td className="py-1 pr-2 font-mono" title={`atomic units: ${s.listedAmount ?? "—"} · ${s.quotedAmount ?? "—"} · ${s.chainAmount ?? "—"}`}>{formatUsdcAtomic(s.listedAmount)} · {formatUsdcAtomic(s.quotedAmount)} · {formatUsdcAtomic(s.chainAmount)}</td>
                        <td className="py-1 pr-2 break-all font-mono">{s.chainTo ?? s.quotedPayTo ?? "—"}</td>
                        <td className="py-1 pr-2 font-mono" title={[s.contentType, s.outputSha256 && `sha256 ${s.outputSha256}`].filter(Boolean).join(" · ") || undefined}>
                          {s.httpStatus ?? "—"} · {s.ttlbMs === null ? "—" : `${s.ttlbMs} ms`} · {s.responseBytes ?? "—"}
                        </td>
                        <td className="py-1 pr-2">{s.schemaValid === null ? "—" : s.schemaValid ? "valid" : "invalid"}</td>
                        <td className="py-1 pr-2">{s.replay ?? "—"}{s.replayStatus ? ` (${s.replayStatus})` : ""}</td>
                        <td className="py-1 break-all font-mono" data-testid="canary-sample-tx">
                          {s.transactionId ? (
                            <span title={`${s.transactionId}${s.blockNumber ? ` in block ${s.blockNumber}` : ""}${s.chainNetwork ? ` on ${s.chainNetwork}` : ""}`}>
                              {s.transactionId.slice(0, 10)}…{s.transactionId.slice(-4)} {s.paymentStatus}{s.blockNumber ? ` · block ${s.blockNumber}` : ""}
                            </span>
                          ) : (
                            "—"
                          )}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </li>
        );
      })}
    </ul>
  );
}
