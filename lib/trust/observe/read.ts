/** The reader: a TrustSubject per current endpoint of a listing, rollups plus the raw rows needed at `now` (docs/TRUST.md "Bounded history"). */
import { isoOf, rows, utcParam, type Client } from "@/lib/sql";
import { loadRubric } from "@/lib/trust/engine";
import { historyPlan, ROLLUP_DAY_MS, ROLLUP_HOUR_MS } from "@/lib/trust/engine/rollup";
import type { CheckKind, Observation, Outcome, Revision, RollupBucket, TrustSubject } from "@/lib/trust/observation";

export interface ReadOptions {
  /** No rollups; default: all. */
  since?: Date;
  /** Score the subjects at this very `now` (default the clock). */
  now?: Date | number;
  /** Every row, live and archived, no rollups (the evidence bundle's read). */
  raw?: boolean;
}

type ObsRow = { listingId: string; method: string; path: string; check: string; kind: CheckKind; outcome: Outcome; value: number | null; observedAt: string; vantage: string; revision: number; receipt: Record<string, unknown> };

const observationOf = (o: Omit<ObsRow, "listingId" | "method" | "path">, endpointId: string): Observation => ({
  endpointId,
  check: o.check,
  kind: o.kind,
  outcome: o.outcome,
  value: o.value === null ? null : Number(o.value),
  observedAt: o.observedAt,
  vantage: o.vantage,
  revision: o.revision,
  receipt: o.receipt,
});

interface EndpointRow {
  listingId: string;
  id: string;
  method: string;
  path: string;
  covered: boolean;
}

/** One endpoint's rows across the statements. Listing ids and methods (an enum) hold no NUL, so the key is unambiguous whatever the path. */
const endpointKey = (listingId: string, method: string, path: string) => `${listingId}\u0000${method}\u0000${path}`;

/** The items under each key, in their order. */
function groupBy<T>(xs: readonly T[], keyOf: (x: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const x of xs) {
    const key = keyOf(x);
    const list = m.get(key);
    if (list) list.push(x);
    else m.set(key, [x]);
  }
  return m;
}

export async function readTrustSubjects(client: Client, listingId: string, options: ReadOptions = {}): Promise<TrustSubject[]> {
  return (await readTrustSubjectsOfMany(client, [listingId], options)).get(listingId) ?? [];
}

/**
 * readTrustSubjects of each listing, in the same five statements however many listings are asked
 * (a catalog page's ungraded tiles read together, not a listing at a time). A listing that does not
 * exist has no entry.
 */
export async function readTrustSubjectsOfMany(client: Client, listingIds: readonly string[], options: ReadOptions = {}): Promise<Map<string, TrustSubject[]>> {
  const ids = [...new Set(listingIds)];
  const out = new Map<string, TrustSubject[]>();
  if (ids.length === 0) return out;
  const listings = await rows<{ id: string; createdAt: string }>(client, `SELECT "id", ${isoOf(`"createdAt"`)} AS "createdAt" FROM "listings" WHERE "id" = ANY($1::text[])`, ids);
  if (listings.length === 0) return out;
  const endpoints = await rows<EndpointRow>(
    client,
    `SELECT e."listingId", e."id", e."method"::text AS "method", e."trustPath" AS "path",
            EXISTS (SELECT 1 FROM "trust_rollup_coverage" c WHERE c."listingId" = e."listingId" AND c."method" = e."method"::text AND c."path" = e."trustPath") AS "covered"
     FROM "endpoints" e WHERE e."listingId" = ANY($1::text[]) ORDER BY e."listingId", e."position"`,
    ids,
  );
  const rolled = !options.raw && !options.since;
  const now = options.now === undefined ? Date.now() : typeof options.now === "number" ? options.now : options.now.getTime();
  const plan = historyPlan(loadRubric(), now);
  const iso = (t: number) => new Date(t).toISOString();
  const cols = `"listingId", "method", "path", "check", "kind", "outcome", "value", "observedAt", "vantage", "revision", "receipt"`;
  const since = options.since ? options.since.toISOString() : "1970-01-01T00:00:00.000Z";
  const coveredSql = (t: string) => `EXISTS (SELECT 1 FROM "trust_rollup_coverage" c WHERE c."listingId" = ${t}."listingId" AND c."method" = ${t}."method" AND c."path" = ${t}."path")`;
  let obs: ObsRow[];
  if (rolled) {
    // The tail and the raw hours, each endpoint's each range one range of the (listing, method, path,
    // observedAt) indexes, live and archived (OFFSET 0: a range scan per range, never the endpoint's
    // every row filtered); an endpoint not yet covered also reads its other rows.
    const ranges = [{ lo: iso(plan.tailFrom), hi: "9999-12-31T00:00:00.000Z" }, ...plan.rawHours.map((h) => ({ lo: iso(h), hi: iso(h + 3_600_000) }))];
    const inRange = (t: string) => `${t}."listingId" = e.l AND ${t}."method" = e.m AND ${t}."path" = e.p AND ${t}."observedAt" >= (g.lo::timestamptz AT TIME ZONE 'UTC') AND ${t}."observedAt" < (g.hi::timestamptz AT TIME ZONE 'UTC')`;
    const grid = `unnest($1::text[], $2::text[], $3::text[]) AS e(l, m, p) CROSS JOIN unnest($4::text[], $5::text[]) AS g(lo, hi)`;
    const uncovered = endpoints.filter((e) => !e.covered);
    const outside = `NOT (${ranges.map((_, i) => `("observedAt" >= ($4::text[])[${i + 1}]::timestamptz AT TIME ZONE 'UTC' AND "observedAt" < ($5::text[])[${i + 1}]::timestamptz AT TIME ZONE 'UTC')`).join(" OR ")})`;
    obs = await rows<ObsRow>(
      client,
      `SELECT "listingId", "method", "path", "check", "kind", "outcome", "value", ${isoOf(`"observedAt"`)} AS "observedAt", "vantage", "revision", "receipt" FROM (
         SELECT o.* FROM ${grid} CROSS JOIN LATERAL (SELECT "id", ${cols} FROM "trust_observations" o WHERE ${inRange("o")} OFFSET 0) o
         ${uncovered.length ? `UNION ALL SELECT "id", ${cols} FROM "trust_observations" WHERE "listingId" = ANY($6::text[]) AND ("listingId", "method", "path") IN (SELECT * FROM unnest($6::text[], $7::text[], $8::text[])) AND ${outside}` : ""}
         UNION ALL
         SELECT r."id", r."listingId", r."method", r."path", r."check", r."kind", r."outcome", r."value", r."observedAt", r."vantage", r."revision", r."receipt"
           FROM ${grid} CROSS JOIN LATERAL (SELECT a."id", a."row" FROM "trust_observations_archive" a WHERE ${inRange("a")}
                                             AND NOT EXISTS (SELECT 1 FROM "trust_observations" l WHERE l."id" = a."id") OFFSET 0) a,
                jsonb_populate_record(NULL::"trust_observations", a."row") r
       ) x ORDER BY x."observedAt", x."check", x."id"`,
      endpoints.map((e) => e.listingId),
      endpoints.map((e) => e.method),
      endpoints.map((e) => e.path),
      ranges.map((r) => r.lo),
      ranges.map((r) => r.hi),
      ...(uncovered.length ? [uncovered.map((e) => e.listingId), uncovered.map((e) => e.method), uncovered.map((e) => e.path)] : []),
    );
  } else {
    obs = await rows<ObsRow>(
      client,
      `SELECT "listingId", "method", "path", "check", "kind", "outcome", "value", ${isoOf(`"observedAt"`)} AS "observedAt", "vantage", "revision", "receipt" FROM (
         SELECT "id", ${cols} FROM "trust_observations" WHERE "listingId" = ANY($1::text[]) AND "observedAt" >= ${utcParam(2)}
         UNION ALL
         SELECT r."id", r."listingId", r."method", r."path", r."check", r."kind", r."outcome", r."value", r."observedAt", r."vantage", r."revision", r."receipt"
         FROM "trust_observations_archive" a, jsonb_populate_record(NULL::"trust_observations", a."row") r
          WHERE a."listingId" = ANY($1::text[]) AND a."observedAt" >= ${utcParam(2)} AND NOT EXISTS (SELECT 1 FROM "trust_observations" l WHERE l."id" = a."id")
       ) x ORDER BY x."observedAt", x."check", x."id"`,
      ids,
      since,
    );
  }
  const dayTail = plan.hourDays[plan.hourDays.length - 1];
  const buckets = rolled
    ? await rows<{ listingId: string; method: string; path: string; grain: string; start: string; checks: RollupBucket["checks"] }>(
        client,
        `SELECT "listingId", "method", "path", "grain", ${isoOf(`"start"`)} AS "start", "checks" FROM "trust_observation_rollups" r
          WHERE "listingId" = ANY($1::text[]) AND ${coveredSql("r")} AND (
            ("grain" = 'day' AND "start" < ${utcParam(2)} AND NOT ("start" = ANY (ARRAY(SELECT (u::timestamptz AT TIME ZONE 'UTC') FROM unnest($3::text[]) u))))
            OR ("grain" = 'hour' AND date_trunc('day', "start") = ANY (ARRAY(SELECT (u::timestamptz AT TIME ZONE 'UTC') FROM unnest($3::text[]) u)) AND "start" < ${utcParam(4)}
                AND NOT ("start" = ANY (ARRAY(SELECT (u::timestamptz AT TIME ZONE 'UTC') FROM unnest($5::text[]) u)))))
          ORDER BY "start"`,
        ids,
        iso(dayTail),
        plan.hourDays.map(iso),
        iso(plan.tailFrom),
        plan.rawHours.map(iso),
      )
    : [];
  const revs = await rows<{ listingId: string; method: string; path: string; revision: number; startedAt: string; changes: string[]; note: string | null }>(
    client,
    `SELECT "listingId", "method", "path", "revision", ${isoOf(`"startedAt"`)} AS "startedAt", "changes", "note"
     FROM "trust_endpoint_revisions" WHERE "listingId" = ANY($1::text[]) ORDER BY "revision"`,
    ids,
  );
  // Each endpoint's rows, in the statements' order (an endpoint's own rows keep the order they had when
  // read alone), grouped once rather than filtered once per endpoint.
  const byEndpoint = (x: { listingId: string; method: string; path: string }) => endpointKey(x.listingId, x.method, x.path);
  const obsOf = groupBy(obs, byEndpoint);
  const bucketsOf = groupBy(buckets, byEndpoint);
  const revsOf = groupBy(revs, byEndpoint);
  const endpointsOf = groupBy(endpoints, (e) => e.listingId);
  for (const listing of listings) {
    out.set(
      listing.id,
      (endpointsOf.get(listing.id) ?? []).map((e) => {
        const key = endpointKey(e.listingId, e.method, e.path);
        const observations: Observation[] = (obsOf.get(key) ?? []).map((o) => observationOf(o, e.id));
        const revisions: Revision[] = (revsOf.get(key) ?? []).map((r) => ({ revision: r.revision, startedAt: r.startedAt, changes: r.changes, note: r.note }));
        // An endpoint never observed is at its first revision, which started with the listing.
        if (revisions.length === 0) revisions.push({ revision: 1, startedAt: listing.createdAt, changes: [], note: null });
        const subject: TrustSubject = { endpointId: e.id, observations, revisions };
        if (rolled && e.covered) {
          subject.rollups = (bucketsOf.get(key) ?? []).map((b) => {
            const start = Date.parse(b.start);
            return { start, end: start + (b.grain === "day" ? ROLLUP_DAY_MS : ROLLUP_HOUR_MS), checks: b.checks };
          });
        }
        return subject;
      }),
    );
  }
  return out;
}

/** An endpoint's latest `limit` observations at or before `now`, newest first, live or archived: a bounded read whatever the history. */
export async function readRecentObservations(client: Client, listingId: string, endpoint: { id: string; method: string; trustPath: string }, limit: number, now: number): Promise<Observation[]> {
  const where = (t: string) => `${t}."listingId" = $1 AND ${t}."method" = $2 AND ${t}."path" = $3 AND ${t}."observedAt" <= ${utcParam(4)}`;
  const order = `"observedAt" DESC, "check" DESC, "id" DESC`;
  const rs = await rows<Omit<ObsRow, "listingId" | "method" | "path">>(
    client,
    `SELECT "check", "kind", "outcome", "value", ${isoOf(`"observedAt"`)} AS "observedAt", "vantage", "revision", "receipt" FROM (
       (SELECT "id", "check", "kind", "outcome", "value", "observedAt", "vantage", "revision", "receipt" FROM "trust_observations" o WHERE ${where("o")} ORDER BY ${order} LIMIT $5)
       UNION ALL
       (SELECT r."id", r."check", r."kind", r."outcome", r."value", r."observedAt", r."vantage", r."revision", r."receipt"
          FROM (SELECT a."id", a."row" FROM "trust_observations_archive" a WHERE ${where("a")} AND NOT EXISTS (SELECT 1 FROM "trust_observations" l WHERE l."id" = a."id")
                ORDER BY a."observedAt" DESC, a."row"->>'check' DESC, a."id" DESC LIMIT $5) a,
               jsonb_populate_record(NULL::"trust_observations", a."row") r)
     ) x ORDER BY ${order} LIMIT $5`,
    listingId,
    endpoint.method,
    endpoint.trustPath,
    new Date(now).toISOString(),
    limit,
  );
  return rs.map((o) => observationOf(o, endpoint.id));
}
