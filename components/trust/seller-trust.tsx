/** The seller's trust section (docs/TRUST.md "Where it shows"): each endpoint's trust body with what to fix first, folded. */
import type { EndpointTrustDetail } from "@/lib/catalog/trust-view";
import { EndpointTrust } from "./endpoint-trust";

export function SellerTrust({ endpoints, publicBase }: { endpoints: EndpointTrustDetail[]; publicBase: string | null }) {
  return (
    <section aria-labelledby="trust-h" className="rounded-xl border border-line bg-white p-5" data-testid="seller-trust">
      <h2 id="trust-h" className="text-lg font-semibold">Trust grade</h2>
      <p className="text-sm text-muted">What the catalog&apos;s probes and paid canary samples saw of each endpoint. Separate from readiness; it never enters readiness or rank.</p>
      {endpoints.length === 0 && <p className="mt-2 text-sm text-muted">No endpoints to grade.</p>}
      <div className="mt-3 space-y-3">
        {endpoints.map((t, i) => (
          <details key={t.endpointId} open={i === 0} className="rounded-lg border border-line p-3">
            <summary className="flex cursor-pointer flex-wrap items-center gap-2 text-sm">
              <span className="font-mono text-xs font-semibold">{t.method}</span>
              <code className="font-mono">{t.path}</code>
              <span className="text-muted">{t.verdict === "insufficient_evidence" ? "not enough evidence yet" : t.label}</span>
              {t.fixFirst[0] && <span className="text-xs text-amber-900">fix first: {t.fixFirst[0].id} {t.fixFirst[0].title}</span>}
              {publicBase && <a href={`${publicBase}/trust/${t.endpointId}`} className="ml-auto text-xs text-brand underline">public page</a>}
            </summary>
            <div className="mt-3">
              <EndpointTrust t={t} seller />
            </div>
          </details>
        ))}
      </div>
    </section>
  );
}
