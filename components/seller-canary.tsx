/**
 * The seller's canary notice on the readiness report: the verification status, and a failing paid test
 * call as the first thing to fix, with each endpoint's reason in words (lib/surfaces/seller-canary.ts).
 */
import type { CanaryNotice } from "@/lib/surfaces/seller-canary";

const LOOK: Record<string, string> = {
  verified: "border-emerald-200 bg-emerald-50 text-emerald-950",
  degraded: "border-red-200 bg-red-50 text-red-950",
  unverified: "border-line bg-white text-slate-800",
};

export function SellerCanary({ canary, published }: { canary: CanaryNotice; published: boolean }) {
  const failing = canary.failing.length > 0;
  return (
    <section aria-labelledby="canary-h" role={failing ? "alert" : undefined} className={`rounded-xl border p-4 text-sm ${failing ? LOOK.degraded : LOOK[canary.verification]}`} data-testid="canary-notice" data-verification={canary.verification}>
      <h2 id="canary-h" className="text-base font-semibold">{failing ? "Fix first: a paid test call failed" : "Paid test calls"}</h2>
      <p className="mt-1" data-testid="canary-status">{canary.status}</p>
      {failing && (
        <ul className="mt-2 space-y-1">
          {canary.failing.map((f) => (
            <li key={`${f.method} ${f.path}`} className="break-words">
              <span className="font-mono text-xs font-semibold">{f.method}</span> <code className="font-mono">{f.path}</code>: {f.words}
              {f.outcome === "degraded" ? " (it answered, with a problem)" : ""}.
            </li>
          ))}
        </ul>
      )}
      <p className="mt-2 text-xs opacity-80">
        The catalog pays each listed endpoint with its own wallet now and then and checks the charge and the answer; buyers see the result on your tile{published ? "" : " once the listing is published"}.
      </p>
    </section>
  );
}
