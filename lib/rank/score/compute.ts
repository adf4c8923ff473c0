/** The rank score from raw facts, or from an analyst's components. */
import {
  liveness as livenessSignal,
  settleGate,
  settlementUnproven,
  SETTLE_GATE_FACTOR,
  type HealthStatus,
  type LivenessResult,
  type SettleFacts,
  type SettleGate,
  type SettleGateResult,
} from "@/lib/scoring/signals";
import { type VerificationStatus } from "./constants";
import {
  featured as featuredFactor,
  priceIntegrity as priceIntegrityComponent,
  quality as qualityScore,
  rank as rankScore,
  to100,
  traction as tractionComponent,
  verification as verificationFactor,
  type Component,
  type FeaturedFacts,
  type PriceIntegrityFacts,
  type Quote,
  type TractionFacts,
} from "./components";

/** `router_payments`, rolling 30 days. */
export interface LedgerAggregates {
  distinctPayers30d: number;
  distinctAttemptingBuyers30d: number;
  settled30d: number;
  medianSettledPrice30d: number | null;
}

/** `settlementUnproven` is derived from the ledger, not taken from here. */
export interface MonitorFacts {
  uptime7d: number | null;
  uptime30d: number | null;
  healthStatus: HealthStatus;
  healthConfidence: number;
}

export interface PriceFacts {
  advertisedPrice: number | null;
  priceLabel: string | null;
  quote: Quote | null;
}

export interface RankInputs {
  now: Date;
  settle: SettleFacts;
  ledger: LedgerAggregates;
  monitor: MonitorFacts;
  price: PriceFacts;
  featuredLevel: number;
  verification: VerificationStatus;
}

export interface GateComponent extends Component<SettleGateResult["facts"] | { given: SettleGate }> {
  gate: SettleGate;
}

export type LivenessComponent = Component<
  | (Omit<LivenessResult, "value"> & { distinctAttemptingBuyers30d: number; settled30d: number })
  | { given: number }
>;

export interface RankResult {
  quality: number;
  rank: number;
  quality100: number;
  rank100: number;
  components: {
    gate: GateComponent;
    liveness: LivenessComponent;
    traction: Component<TractionFacts | { given: number }>;
    priceIntegrity: Component<PriceIntegrityFacts | { given: number }>;
    featured: Component<FeaturedFacts>;
    verification: Component<{ status: VerificationStatus }>;
  };
}

export interface ComputeOptions {
  /** False leaves every reason empty, nothing else (explainStoredRank restores them from the facts). */
  explain?: boolean;
}

export function computeRank(inputs: RankInputs, opts?: ComputeOptions): RankResult {
  const { now, ledger, monitor, price } = inputs;
  const explain = opts?.explain ?? true;

  const gateResult = settleGate(inputs.settle, now, explain);
  const gate: GateComponent = { value: gateResult.factor, gate: gateResult.gate, reason: gateResult.reason, facts: gateResult.facts };

  // Seed `settlementUnprovenSince`: buyers tried and none settled, so uptime is withheld.
  const unproven = settlementUnproven(ledger.distinctAttemptingBuyers30d, ledger.settled30d);
  const live = livenessSignal({
    uptime7d: monitor.uptime7d,
    uptime30d: monitor.uptime30d,
    healthStatus: monitor.healthStatus,
    healthConfidence: monitor.healthConfidence,
    settlementUnproven: unproven,
  });
  const liveness: LivenessComponent = {
    value: live.value,
    reason: explain ? livenessReason(live) : "",
    // Written out: an object rest and a spread here showed in the sweep's profile.
    facts: {
      source: live.source,
      cappedByConfidence: live.cappedByConfidence,
      uptimeWithheld: live.uptimeWithheld,
      facts: live.facts,
      distinctAttemptingBuyers30d: ledger.distinctAttemptingBuyers30d,
      settled30d: ledger.settled30d,
    },
  };

  const traction = tractionComponent({ distinctPayers30d: ledger.distinctPayers30d }, explain);
  const priceIntegrity = priceIntegrityComponent({
    distinctPayers30d: ledger.distinctPayers30d,
    medianSettledPrice: ledger.medianSettledPrice30d,
    advertisedPrice: price.advertisedPrice,
    quote: price.quote,
    priceLabel: price.priceLabel,
    now,
  }, explain);

  return assemble(gate, liveness, traction, priceIntegrity, inputs.featuredLevel, inputs.verification, explain);
}

export interface RankComponentsInput {
  gate: SettleGate;
  liveness: number;
  traction: number;
  priceIntegrity: number;
  featuredLevel: number;
  verification: VerificationStatus;
}

/** From an analyst's components (`npm run rank -- components.json`); Featured and Verification are still computed, so the gate still forces Featured. */
export function computeRankFromComponents(input: RankComponentsInput): RankResult {
  if (!Object.hasOwn(SETTLE_GATE_FACTOR, input.gate)) {
    throw new RangeError(`gate must be settleable, unknown or unpayable, got ${String(input.gate)}`);
  }
  const given = (value: number) => ({ value, reason: "given", facts: { given: value } });
  const gate: GateComponent = { value: SETTLE_GATE_FACTOR[input.gate], gate: input.gate, reason: "given", facts: { given: input.gate } };
  return assemble(gate, given(input.liveness), given(input.traction), given(input.priceIntegrity), input.featuredLevel, input.verification);
}

function assemble(
  gate: GateComponent,
  liveness: RankResult["components"]["liveness"],
  traction: RankResult["components"]["traction"],
  priceIntegrity: RankResult["components"]["priceIntegrity"],
  featuredLevel: number,
  verificationStatus: VerificationStatus,
  explain = true,
): RankResult {
  const featured = featuredFactor({ level: featuredLevel, gate: gate.gate }, explain);
  const verification = verificationFactor(verificationStatus, explain);
  const q = qualityScore({ gate: gate.gate, liveness: liveness.value, traction: traction.value, priceIntegrity: priceIntegrity.value }, false).value;
  const r = rankScore({ quality: q, featured: featured.value, verification: verification.value }, false).value;
  return {
    quality: q,
    rank: r,
    quality100: to100(q),
    rank100: to100(r),
    components: { gate, liveness, traction, priceIntegrity, featured, verification },
  };
}

function livenessReason(l: LivenessResult): string {
  const f = l.facts;
  let why: string;
  if (l.source === "uptime7d") why = `7-day uptime ${f.uptime7d}%`;
  else if (l.source === "uptime30d") why = `no 7-day uptime; 30-day uptime ${f.uptime30d}%`;
  else if (l.uptimeWithheld) why = `buyers tried to pay and none settled, so probe uptime is withheld; ${f.healthStatus} baseline`;
  else why = `no uptime yet; ${f.healthStatus} baseline`;
  return l.cappedByConfidence ? `${why}, capped at health confidence ${f.healthConfidence}` : why;
}
