/**
 * The evidence bundle (docs/ATTESTATIONS.md "The evidence bundle"): what the engine read for one scoring of one
 * endpoint, as canonical JSON (RFC 8785) and its SHA-256. Pure.
 */
import { createHash } from "node:crypto";
import { canonicalJson } from "../badges/canonical-json";
import type { Observation, Revision, TrustSubject } from "../trust/observation";
import { readingOf, type TrustRubric } from "../trust/rubric";
import type { BandOptions } from "../trust/engine/band";

export const BUNDLE_TYPE = "tollgate.evidence-bundle/1";

export interface AttestedEndpoint {
  id: string;
  listingId: string;
  url: string;
  method: string;
}

export interface BundleScoring {
  /** ISO 8601 (the engine's `now`). */
  now: string;
  seed: number;
  /** `{}` is the reading's defaults. */
  bandOptions: Partial<BandOptions>;
}

export interface EvidenceBundle {
  _type: typeof BUNDLE_TYPE;
  endpoint: AttestedEndpoint;
  rubric: {
    ref: string;
    reading: string;
    sha256: string;
    readingSha256: string;
    document: unknown;
    readingDocument: unknown;
  };
  scoring: BundleScoring;
  subject: TrustSubject;
}

export interface BuiltBundle {
  document: EvidenceBundle;
  /** `bytes` is its UTF-8. */
  canonical: string;
  bytes: Buffer;
  /** Lowercase hex SHA-256 of `bytes`. */
  sha256: string;
}

export class BundleError extends Error {
  constructor(
    readonly code: "endpoint_mismatch" | "bad_now" | "bad_seed" | "no_reading" | "bad_observation",
    message: string,
    readonly pointer = "",
  ) {
    super(pointer ? `${message} at ${pointer}` : message);
    this.name = "BundleError";
  }
}

export const sha256Hex = (b: string | Uint8Array) => createHash("sha256").update(b).digest("hex");

/** SHA-256 of its canonical JSON. */
export const documentSha256 = (v: unknown) => sha256Hex(canonicalJson(v));

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** (observedAt, check, vantage), then the canonical text: the same set is always the same bytes. */
export function compareObservations(a: Observation, b: Observation): number {
  return Date.parse(a.observedAt) - Date.parse(b.observedAt) || cmp(a.check, b.check) || cmp(a.vantage, b.vantage) || cmp(canonicalJson(a), canonicalJson(b));
}

function plainObservation(o: Observation): Observation {
  return {
    endpointId: o.endpointId,
    check: o.check,
    kind: o.kind,
    outcome: o.outcome,
    value: o.value ?? null,
    observedAt: o.observedAt,
    vantage: o.vantage,
    revision: o.revision,
    receipt: o.receipt ?? {},
  };
}

function plainRevision(r: Revision): Revision {
  return { revision: r.revision, startedAt: r.startedAt, changes: [...r.changes], note: r.note ?? null };
}

export interface BuildBundleInput {
  endpoint: AttestedEndpoint;
  rubric: TrustRubric;
  scoring: { now: Date | string; seed: number; bandOptions?: Partial<BandOptions> };
  subject: TrustSubject;
}

/**
 * Observations after `now` are left out, so the bytes are the evidence as of `now`. Refuses another endpoint's
 * subject.
 */
export function buildBundle({ endpoint, rubric, scoring, subject }: BuildBundleInput): BuiltBundle {
  const nowMs = scoring.now instanceof Date ? scoring.now.getTime() : Date.parse(scoring.now);
  if (!Number.isFinite(nowMs)) throw new BundleError("bad_now", "scoring.now is not an instant", "/scoring/now");
  if (!Number.isSafeInteger(scoring.seed)) throw new BundleError("bad_seed", "scoring.seed must be an integer", "/scoring/seed");
  if (subject.endpointId !== endpoint.id) throw new BundleError("endpoint_mismatch", `the subject is endpoint ${subject.endpointId}, not ${endpoint.id}`, "/subject/endpointId");
  const reading = rubric.reading ?? readingOf(rubric);
  if (!reading) throw new BundleError("no_reading", "the rubric carries no reading");

  const observations: Observation[] = [];
  subject.observations.forEach((o, i) => {
    if (o.endpointId !== endpoint.id) throw new BundleError("endpoint_mismatch", `observation of endpoint ${o.endpointId}`, `/subject/observations/${i}/endpointId`);
    const at = Date.parse(o.observedAt);
    if (!Number.isFinite(at)) throw new BundleError("bad_observation", "observedAt is not an instant", `/subject/observations/${i}/observedAt`);
    if (at <= nowMs) observations.push(plainObservation(o));
  });
  observations.sort(compareObservations);
  const revisions = subject.revisions.map(plainRevision).sort((a, b) => a.revision - b.revision);

  const document: EvidenceBundle = {
    _type: BUNDLE_TYPE,
    endpoint: { id: endpoint.id, listingId: endpoint.listingId, url: endpoint.url, method: endpoint.method },
    rubric: {
      ref: rubric.ref,
      reading: reading.ref,
      sha256: documentSha256(rubric.file),
      readingSha256: documentSha256(reading.file),
      document: rubric.file,
      readingDocument: reading.file,
    },
    scoring: { now: new Date(nowMs).toISOString(), seed: scoring.seed, bandOptions: { ...(scoring.bandOptions ?? {}) } },
    subject: { endpointId: subject.endpointId, observations, revisions },
  };
  const canonical = canonicalJson(document);
  const bytes = Buffer.from(canonical, "utf8");
  return { document, canonical, bytes, sha256: sha256Hex(bytes) };
}

export function scoreOptionsOf(bundle: EvidenceBundle): { now: string; seed: number; band: true; bandOptions: Partial<BandOptions> } {
  return { now: bundle.scoring.now, seed: bundle.scoring.seed, band: true, bandOptions: bundle.scoring.bandOptions };
}
