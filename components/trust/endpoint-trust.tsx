/**
 * One endpoint's trust page body (docs/TRUST.md "Where it shows"): grade, verdict, outlook and watch;
 * the gates that fired; every check's rate; the score over 30 days; the recent observations with their
 * receipts. With `seller`, the seller's view adds what to fix first.
 */
import type { EndpointTrustDetail } from "@/lib/catalog/trust-view";
import { trustReading } from "@/lib/catalog/trust-words";
import { ValueMetrics } from "./value-metrics";
import { ChecksSection, FixFirst, GatesSection, RecentObservations, ScoreHistory, TrustSummary } from "./endpoint-trust-sections";

export function EndpointTrust({ t, seller = false, now = Date.now() }: { t: EndpointTrustDetail; seller?: boolean; now?: number }) {
  const reading = trustReading(t, now);
  return (
    <div className="space-y-8" data-testid="endpoint-trust">
      <TrustSummary t={t} reading={reading} />

      <ValueMetrics value={t.value} />

      {seller && <FixFirst fixFirst={t.fixFirst} />}

      <GatesSection gatesFired={t.gatesFired} />

      <ScoreHistory history={t.history} />

      <ChecksSection t={t} />

      <RecentObservations recent={t.recent} />
    </div>
  );
}
