/**
 * The value metrics beside the trust grade (docs/spec/trust-rubric.md `value`: "shown beside the
 * score, never inside it"): the price's place among comparable endpoints and USD per KiB of valid
 * output, each with its honest empty state.
 */
import { valueSentences, type EndpointValueView } from "@/lib/catalog/trust-view";

export function ValueMetrics({ value, compact = false }: { value: EndpointValueView; compact?: boolean }) {
  // The compact form sits on buyer pages: the peer rule in words, without check ids.
  const s = valueSentences(value, { plain: compact });
  if (compact) {
    return (
      <p className="mt-1 text-xs text-muted" data-testid="trust-value">
        <span className="font-medium text-slate-700">Value (not part of the grade):</span> {s.price} {s.perKib}
      </p>
    );
  }
  return (
    <section aria-labelledby="value-h" data-testid="trust-value">
      <h2 id="value-h" className="text-base font-semibold">Value</h2>
      <p className="text-xs text-muted">Shown beside the grade, never inside it: price is not trust.</p>
      <dl className="mt-2 grid gap-2 text-sm sm:grid-cols-2">
        <div className="rounded-lg border border-line bg-white p-3">
          <dt className="text-xs text-muted">Price among comparable endpoints</dt>
          <dd className={s.comparable ? "" : "text-muted"} data-testid="trust-value-price">{s.price}</dd>
        </div>
        <div className="rounded-lg border border-line bg-white p-3">
          <dt className="text-xs text-muted">USD per KiB of valid output</dt>
          <dd className={s.measured ? "" : "text-muted"} data-testid="trust-value-kib">{s.perKib}</dd>
        </div>
      </dl>
    </section>
  );
}
