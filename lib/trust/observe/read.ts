/**
 * The reader: a TrustSubject (lib/trust/observation.ts) per current endpoint of a listing, with every
 * observation of that endpoint (listingId, method, path), whatever endpoint row id it was observed
 * under, and its revisions. `endpointId` is the catalog's current id of the endpoint.
 */
import { isoOf, rows, utcParam, type Client } from "@/lib/sql";
import type { CheckKind, Observation, Outcome, Revision, TrustSubject } from "@/lib/trust/observation";

export interface ReadOptions {
  /** Only observations at or after this instant (the engine's widest window); default: all. */
  since?: Date;
}

/** One TrustSubject per endpoint of the listing, in the listing's endpoint order. */
export async function readTrustSubjects(client: Client, listingId: string, options: ReadOptions = {}): Promise<TrustSubject[]> {
  const [listing] = await rows<{ createdAt: string }>(client, `SELECT ${isoOf(`"createdAt"`)} AS "createdAt" FROM "listings" WHERE "id" = $1`, listingId);
  if (!listing) return [];
  const endpoints = await rows<{ id: string; method: string; path: string }>(
    client,
    `SELECT "id", "method"::text AS "method", "path" FROM "endpoints" WHERE "listingId" = $1 ORDER BY "position"`,
    listingId,
  );
  const since = options.since ? options.since.toISOString() : "1970-01-01T00:00:00.000Z";
  const obs = await rows<{ method: string; path: string; check: string; kind: CheckKind; outcome: Outcome; value: number | null; observedAt: string; vantage: string; revision: number; receipt: Record<string, unknown> }>(
    client,
    `SELECT "method", "path", "check", "kind", "outcome", "value", ${isoOf(`"observedAt"`)} AS "observedAt", "vantage", "revision", "receipt"
     FROM "trust_observations" WHERE "listingId" = $1 AND "observedAt" >= ${utcParam(2)}
     ORDER BY "observedAt", "check", "id"`,
    listingId,
    since,
  );
  const revs = await rows<{ method: string; path: string; revision: number; startedAt: string; changes: string[]; note: string | null }>(
    client,
    `SELECT "method", "path", "revision", ${isoOf(`"startedAt"`)} AS "startedAt", "changes", "note"
     FROM "trust_endpoint_revisions" WHERE "listingId" = $1 ORDER BY "revision"`,
    listingId,
  );
  return endpoints.map((e) => {
    const k = (x: { method: string; path: string }) => x.method === e.method && x.path === e.path;
    const observations: Observation[] = obs.filter(k).map((o) => ({
      endpointId: e.id,
      check: o.check,
      kind: o.kind,
      outcome: o.outcome,
      value: o.value === null ? null : Number(o.value),
      observedAt: o.observedAt,
      vantage: o.vantage,
      revision: o.revision,
      receipt: o.receipt,
    }));
    const revisions: Revision[] = revs.filter(k).map((r) => ({ revision: r.revision, startedAt: r.startedAt, changes: r.changes, note: r.note }));
    // An endpoint never observed is at its first revision, which started with the listing.
    if (revisions.length === 0) revisions.push({ revision: 1, startedAt: listing.createdAt, changes: [], note: null });
    return { endpointId: e.id, observations, revisions };
  });
}
