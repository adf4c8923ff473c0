/** The health sweep: one monitor sample per published listing, plus quoted prices (docs/spec/scoring-notes.md). */
import { db } from "@/lib/db";
import { env } from "@/lib/env";
import { clientOr, exec, rows, session } from "@/lib/sql";
import { PUBLIC_LISTING } from "@/lib/listings/visibility";
import { probeListing, type EndpointEvidence } from "@/lib/probe";
import { mapBounded } from "@/lib/probe/bounded";
import { hostOf } from "@/lib/probe/transport";
import { referencesAnswer, resolverFailed } from "@/lib/net/references";
import { listingToDocument } from "@/lib/listings/document-mapping";
import { HEALTH_CONFIDENCE } from "@/lib/scoring/signals";
import { healthStatusFor } from "@/lib/facts/aggregate";
import { recordHealthSample, recordQuote, type HealthOutcome } from "@/lib/ledger/record";
import { prepareProbeObservations, recordProbeObservations } from "@/lib/trust/observe";

export const HEALTH_SWEEP_CONCURRENCY = 8;
export const HEALTH_SWEEP_LOCK_KEY = 724_021_440;
/** A resumed or doubled sweep never doubles a sample. */
export const HEALTH_RESAMPLE_AFTER_MS = 150_000;
const PAGE = 200;
/** Fresh means < 30 days. */
const QUOTE_REFRESH_MS = 24 * 3_600_000;

export interface HealthReading {
  outcome: HealthOutcome;
  confidence: number;
  httpStatus: number | null;
  latencyMs: number | null;
  challengeKind: string | null;
}

export function endpointConfidence(e: EndpointEvidence): number {
  if (e.status === null) return HEALTH_CONFIDENCE.noAnswer;
  if (e.challenge.kind !== "none" && e.challenge.valid) return HEALTH_CONFIDENCE.validChallenge;
  if (e.status >= 400 && e.status < 500 && /\bjson\b|\+json\b/i.test(e.contentType ?? "")) return HEALTH_CONFIDENCE.structured4xx;
  return HEALTH_CONFIDENCE.otherAnswer;
}

export function readingFromEvidence(endpoints: readonly EndpointEvidence[], payable: (e: EndpointEvidence) => boolean): HealthReading {
  const pool = endpoints.some(payable) ? endpoints.filter(payable) : endpoints;
  let best: EndpointEvidence | null = null;
  let bestConfidence = -1;
  for (const e of pool) {
    const c = endpointConfidence(e);
    if (c > bestConfidence) [best, bestConfidence] = [e, c];
  }
  if (!best) return { outcome: "down", confidence: HEALTH_CONFIDENCE.noAnswer, httpStatus: null, latencyMs: null, challengeKind: null };
  return {
    outcome: bestConfidence >= HEALTH_CONFIDENCE.structured4xx ? "up" : "down",
    confidence: bestConfidence,
    httpStatus: best.status,
    latencyMs: best.ttfbMs,
    challengeKind: best.challenge.kind === "none" ? null : best.challenge.kind,
  };
}

/** The monitor's own outage: no reading is written as the sellers' downtime (docs/ARCHITECTURE.md "Processes"). */
export const EGRESS_MIN_HOSTS = 5;
export const EGRESS_OUTAGE_SHARE = 0.8;

type HostTally = { hosts: number; silent: number };

function hostsAnswered(results: ReadonlyArray<{ host: string; unanswered: boolean }>): HostTally {
  const answered = new Map<string, boolean>();
  for (const r of results) answered.set(r.host, (answered.get(r.host) ?? false) || !r.unanswered);
  return { hosts: answered.size, silent: [...answered.values()].filter((a) => !a).length };
}

const fewAllSilent = ({ hosts, silent }: HostTally) => hosts > 0 && hosts < EGRESS_MIN_HOSTS && silent === hosts;

/** Too few hosts to tell by their share, and every one silent: only the references can say whose outage it is. */
export function needsReferences(results: ReadonlyArray<{ host: string; unanswered: boolean }>): boolean {
  return fewAllSilent(hostsAnswered(results));
}

/** `referencesAnswered`: null when none were asked (or none are configured). */
export function egressOutage(results: ReadonlyArray<{ host: string; unanswered: boolean }>, referencesAnswered: boolean | null = null): boolean {
  const tally = hostsAnswered(results);
  if (tally.hosts < EGRESS_MIN_HOSTS) return fewAllSilent(tally) && referencesAnswered === false;
  // One seller can hold many host names: an operator's reference answering says the network was up.
  return tally.silent / tally.hosts >= EGRESS_OUTAGE_SHARE && referencesAnswered !== true;
}

export interface HealthSweepOptions {
  now?: Date;
  concurrency?: number;
  allowHosts?: string[];
  vantage?: string;
  deadlineMs?: number;
  /** TOLLGATE_MONITOR_REFERENCES by default. */
  references?: string[];
  onListing?: (listingId: string) => void | Promise<void>;
}

export interface HealthSweepResult {
  leader: boolean;
  probed: number;
  up: number;
  down: number;
  refused: number;
  /** Allow-list-only mode: no sample. */
  skipped: number;
  /** Unanswered during the monitor's own outage (egressOutage), or refused by our own connection caps: no sample, sampled again next sweep. */
  unmeasured: number;
  quotes: number;
  ms: number;
}

let running = false;

export async function runHealthSweep(opts: HealthSweepOptions = {}): Promise<HealthSweepResult> {
  const idle: HealthSweepResult = { leader: false, probed: 0, up: 0, down: 0, refused: 0, skipped: 0, unmeasured: 0, quotes: 0, ms: 0 };
  if (running) return idle;
  running = true;
  try {
    return await session(await clientOr(), async (conn) => {
      const [{ got }] = await rows<{ got: boolean }>(conn, "SELECT pg_try_advisory_lock($1, hashtext(current_schema())) AS got", HEALTH_SWEEP_LOCK_KEY);
      if (!got) return idle;
      try {
        return await sweep(opts);
      } finally {
        await rows(conn, "SELECT pg_advisory_unlock($1, hashtext(current_schema()))", HEALTH_SWEEP_LOCK_KEY);
      }
    });
  } finally {
    running = false;
  }
}

async function sweep(opts: HealthSweepOptions): Promise<HealthSweepResult> {
  const started = Date.now();
  const prisma = await db();
  const allowHosts = opts.allowHosts ?? env().probeAllowHosts;
  const vantage = opts.vantage ?? "local";
  const totals: HealthSweepResult = { leader: true, probed: 0, up: 0, down: 0, refused: 0, skipped: 0, unmeasured: 0, quotes: 0, ms: 0 };
  const sampledSince = new Date((opts.now ?? new Date()).getTime() - HEALTH_RESAMPLE_AFTER_MS);
  let cursor: string | undefined;
  for (;;) {
    const listings = await prisma.listing.findMany({
      where: { AND: [PUBLIC_LISTING, { healthSamples: { none: { vantage, at: { gt: sampledSince } } } }] },
      orderBy: { id: "asc" },
      take: PAGE,
      ...(cursor ? { cursor: { id: cursor }, skip: 1 } : {}),
      include: { endpoints: true },
    });
    if (listings.length === 0) break;
    cursor = listings[listings.length - 1].id;
    const concurrency = opts.concurrency ?? HEALTH_SWEEP_CONCURRENCY;
    // The page is probed first and written after, so the monitor's own outage is known before anything is written.
    const probed = await mapBounded(listings, concurrency, async (listing) => {
      await opts.onListing?.(listing.id);
      const at = opts.now ?? new Date();
      const probe = await probeListing(listingToDocument(listing), { allowHosts, vantage, now: at, deadlineMs: opts.deadlineMs, concurrency: 4 });
      // Nothing answered; a base host resolved to a refused address got no request either.
      const unanswered = probe.ok ? probe.evidence.endpoints.every((e) => e.status === null) : probe.refusal === "address_forbidden";
      const unresolved = probe.ok && probe.evidence.endpoints.length > 0 && probe.evidence.endpoints.every((e) => resolverFailed(e.resolverError));
      return { listing, at, probe, unanswered, unresolved };
    });
    const answered = probed.filter((p) => p.probe.ok || p.unanswered);
    const byHost = answered.map((p) => ({ host: hostOf(p.listing.baseUrl) ?? p.listing.baseUrl, unanswered: p.unanswered }));
    const askReferences = needsReferences(byHost) || egressOutage(byHost, null);
    // Mostly unresolved: only named references vouch for our resolver.
    const silent = answered.filter((p) => p.unanswered);
    const through = silent.length > 0 && silent.filter((p) => p.unresolved).length * 2 >= silent.length ? "resolver" : "network";
    const outage = egressOutage(byHost, askReferences ? await referencesAnswer(opts.references ?? env().monitorReferences, opts.deadlineMs, { through }) : null);
    await mapBounded(probed, concurrency, async ({ listing, at, probe, unanswered }) => {
      if (!probe.ok && probe.refusal === "host_not_allowlisted") {
        totals.skipped++;
        return;
      }
      if (outage && unanswered) {
        totals.unmeasured++;
        return;
      }
      // Our own connection caps refused a call (nothing was sent): the reading would blame the seller for our
      // queue, so there is none, and the next sweep samples it again.
      if (probe.ok && probe.evidence.endpoints.some((e) => e.refusal === "connection_limit")) {
        totals.unmeasured++;
        return;
      }
      const byKey = new Map(listing.endpoints.map((e) => [`${e.method} ${e.path}`, e]));
      const endpointOf = (e: EndpointEvidence) => byKey.get(`${e.method} ${e.path}`);
      const reading: HealthReading = probe.ok
        ? readingFromEvidence(probe.evidence.endpoints, (e) => endpointOf(e)?.payable ?? false)
        : { outcome: "down", confidence: HEALTH_CONFIDENCE.noAnswer, httpStatus: null, latencyMs: null, challengeKind: null };
      const domains = probe.ok ? await prepareProbeObservations(probe.evidence) : null;
      await prisma.$transaction(async (tx) => {
        const sample = await recordHealthSample({ listingId: listing.id, at, vantage, ...reading }, tx);
        if (probe.ok && domains) await recordProbeObservations(tx, { listingId: listing.id, evidence: probe.evidence, source: "monitor", sourceId: sample.id, domains });
      });
      const status = healthStatusFor(reading.confidence);
      if (status !== listing.healthStatus) {
        // Raw SQL: a health reading must not move updatedAt.
        await exec(prisma, `UPDATE "listings" SET "healthStatus" = $2::"HealthStatus" WHERE id = $1`, listing.id, status);
      }
      totals.probed++;
      if (!probe.ok) totals.refused++;
      if (reading.outcome === "up") totals.up++;
      else totals.down++;
      if (probe.ok) totals.quotes += await recordQuotesSeen(listing.id, probe.evidence.endpoints, endpointOf, at);
    });
    if (listings.length < PAGE) break;
  }
  return { ...totals, ms: Date.now() - started };
}

async function recordQuotesSeen(
  listingId: string,
  endpoints: readonly EndpointEvidence[],
  endpointOf: (e: EndpointEvidence) => { id: string } | undefined,
  at: Date,
): Promise<number> {
  const prisma = await db();
  let written = 0;
  for (const e of endpoints) {
    const req = e.challenge.valid ? e.challenge.requirements?.find((r) => /^[0-9]{1,38}$/.test(r.amount) && r.asset && r.network) : undefined;
    const endpoint = endpointOf(e);
    if (!req || !endpoint) continue;
    const last = await prisma.priceQuote.findFirst({ where: { listingId, endpointId: endpoint.id }, orderBy: { quotedAt: "desc" }, select: { amount: true, asset: true, network: true, quotedAt: true } });
    const same = last && last.amount === req.amount && last.asset === req.asset && last.network === req.network;
    if (same && at.getTime() - last.quotedAt.getTime() < QUOTE_REFRESH_MS) continue;
    await recordQuote({ listingId, endpointId: endpoint.id, amount: req.amount, asset: req.asset, network: req.network, quotedAt: at, source: `health-sweep:${e.challenge.kind}` });
    written++;
  }
  return written;
}
