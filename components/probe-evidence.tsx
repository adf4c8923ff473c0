/** What the catalog-monitor saw (lib/evidence.ts): per endpoint status, payment headers, the decoded challenge, findings with check ids. */
import type { Finding, ProbeEvidence, ResourceEvidence } from "@/lib/evidence";
import { SeverityChip } from "./rule-status";

/** "host:port/path" of an http(s) URL with its scheme, for comparing where evidence was probed with where the listing is now. */
function origin(url: string): string | null {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, "")}`.toLowerCase();
  } catch {
    return null;
  }
}

/** Evidence probed at another base URL than the listing's (the demo's seed): said, so its TLS and networks are not read as the listing's. */
export function evidenceElsewhere(probeBaseUrl: string, listingBaseUrl: string | null | undefined): string | null {
  if (!listingBaseUrl) return null;
  const a = origin(probeBaseUrl);
  const b = origin(listingBaseUrl);
  if (a === null || b === null || a === b) return null;
  return `This evidence was probed at ${probeBaseUrl}, not at the listing's base URL ${listingBaseUrl}: its TLS, networks and answers describe that address. The next analysis probes the listing where it is.`;
}

function Findings({ findings }: { findings: Finding[] }) {
  if (!findings.length) return null;
  return (
    <div className="mt-2 relative overflow-x-auto">
      <table className="w-full text-left text-xs">
        <caption className="sr-only">Findings</caption>
        <thead className="text-muted">
          <tr><th className="py-1 pr-2 font-medium">Check</th><th className="py-1 pr-2 font-medium">Severity</th><th className="py-1 pr-2 font-medium">Code</th><th className="py-1 font-medium">Finding</th></tr>
        </thead>
        <tbody className="divide-y divide-line">
          {findings.map((f, i) => (
            <tr key={`${f.check}-${f.code}-${i}`} className="align-top">
              <td className="py-1 pr-2 font-mono font-semibold">{f.check}</td>
              <td className="py-1 pr-2"><SeverityChip severity={f.severity} /></td>
              <td className="break-all py-1 pr-2 font-mono">{f.code}</td>
              <td className="py-1">{f.message}{f.pointer && <code className="ml-1 text-muted">{f.pointer}</code>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Resource({ label, r, extra }: { label: string; r: ResourceEvidence | null; extra?: string }) {
  return (
    <li className="min-w-0 rounded-lg border border-line p-3 text-sm">
      <p className="font-medium">{label}</p>
      {r ? (
        <>
          <p className="mt-0.5 break-all text-xs text-muted">
            {r.url} · {r.ok ? "ok" : "not ok"}{r.status !== null && ` · HTTP ${r.status}`}{r.contentType && ` · ${r.contentType}`}{r.refusal && ` · refused: ${r.refusal}`}{extra && ` · ${extra}`}
          </p>
          <Findings findings={r.findings} />
        </>
      ) : (
        <p className="mt-0.5 text-xs text-muted">Not declared, so not fetched.</p>
      )}
    </li>
  );
}

export function ProbeEvidenceView({ probe, listingBaseUrl = null }: { probe: ProbeEvidence; listingBaseUrl?: string | null }) {
  const elsewhere = evidenceElsewhere(probe.baseUrl, listingBaseUrl);
  return (
    <div className="mt-3 space-y-4">
      {elsewhere && (
        <p role="note" className="rounded-md border border-amber-300 bg-amber-50 p-2 text-sm text-amber-950" data-testid="evidence-elsewhere">
          {elsewhere}
        </p>
      )}
      <ul className="space-y-3">
        {probe.endpoints.map((e, i) => {
          const payHeaders = Object.entries(e.headers ?? {}).filter(([k]) => /payment|www-authenticate|x-payment/i.test(k));
          const decoded = e.challenge.x402 ?? (e.challenge.mpp?.length ? e.challenge.mpp : null);
          return (
            <li key={`${e.method} ${e.path} ${i}`} className="rounded-lg border border-line p-3 text-sm">
              <div className="flex flex-wrap items-center gap-2">
                <span className="rounded bg-slate-900 px-2 py-0.5 font-mono text-xs font-semibold text-white">{e.method}</span>
                <code className="break-all font-mono">{e.path}</code>
                <span className={`ml-auto rounded px-1.5 py-0.5 text-xs font-semibold ${e.status === 402 ? "bg-green-50 text-green-800" : "bg-slate-100 text-slate-700"}`}>
                  {e.reachable ? `HTTP ${e.status}` : e.refusal ? `refused: ${e.refusal}` : "no answer"}
                </span>
              </div>
              <p className="mt-1 text-xs text-muted">
                challenge <strong className="text-ink">{e.challenge.kind}</strong> · {e.challenge.valid ? "valid, payable" : "not valid"}
                {e.ttfbMs !== null && ` · ${Math.round(e.ttfbMs)} ms to first byte`}
                {e.contentType && ` · ${e.contentType}`}
                {e.tls && ` · TLS ${e.tls.valid ? "valid" : "invalid"}`}
              </p>
              {e.challenge.requirements && e.challenge.requirements.length > 0 && (
                <ul className="mt-1 text-xs">
                  {e.challenge.requirements.map((r, j) => (
                    <li key={j} className="font-mono">
                      {r.scheme} · {r.network} · {r.amount} of {r.asset.slice(0, 12)}… → {r.payTo.slice(0, 12)}…
                    </li>
                  ))}
                </ul>
              )}
              {payHeaders.length > 0 && (
                <details className="mt-2 text-xs">
                  <summary className="cursor-pointer text-muted hover:text-ink">Payment headers ({payHeaders.map(([k]) => k).join(", ")})</summary>
                  <pre className="mt-1 max-h-40 overflow-auto whitespace-pre-wrap break-all rounded bg-slate-100 p-2 text-[11px]">{payHeaders.map(([k, v]) => `${k}: ${v}`).join("\n")}</pre>
                </details>
              )}
              {decoded !== null && decoded !== undefined && (
                <details className="mt-1 text-xs">
                  <summary className="cursor-pointer text-muted hover:text-ink">Decoded challenge</summary>
                  <pre className="mt-1 max-h-72 overflow-auto rounded bg-slate-950 p-2 text-[11px] text-slate-100">{JSON.stringify(decoded, null, 2).slice(0, 8000)}</pre>
                </details>
              )}
              <Findings findings={e.findings} />
            </li>
          );
        })}
      </ul>
      <ul className="grid grid-cols-1 gap-3 md:grid-cols-3">
        <Resource label="Logo (M4)" r={probe.logo} extra={probe.logo ? (probe.logo.isImage ? "an image" : "not an image") : undefined} />
        <Resource label="Docs (D1)" r={probe.docs} />
        <Resource label="Discovery document (D4)" r={probe.discovery} extra={probe.discovery?.kind ?? undefined} />
      </ul>
      {probe.findings.length > 0 && (
        <div>
          <h3 className="text-sm font-semibold">Listing-level findings</h3>
          <Findings findings={probe.findings} />
        </div>
      )}
    </div>
  );
}
