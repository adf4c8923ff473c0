/** The observations' rollups (in the writer's transaction, under the endpoint's lock) and archive (docs/TRUST.md "Bounded history"). */
import { isoOf, NOW_UTC, rows, transaction, utcParam, type Client } from "@/lib/sql";
import type { CheckKind, Observation, Outcome, RollupBucket } from "@/lib/trust/observation";
import type { TrustRubric } from "@/lib/trust/engine";
import { dayOf, hourOf, mergeRollups, rollupOf, ROLLUP_DAY_MS, ROLLUP_HOUR_MS } from "@/lib/trust/engine/rollup";

export interface EndpointKey {
  listingId: string;
  method: string;
  path: string;
}

type RawRow = { check: string; kind: CheckKind; outcome: Outcome; value: number | null; observedAt: string; revision: number; vantage: string; receipt: Record<string, unknown> };

export const OBSERVATION_COLUMNS = `"check", "kind", "outcome", "value", ${isoOf(`"observedAt"`)} AS "observedAt", "vantage", "revision", "receipt"`;
const K = `"listingId" = $1 AND "method" = $2 AND "path" = $3`;

/** Live and archived rows of one endpoint matching `where`, in the reader's order. */
export async function endpointRows(tx: Client, key: EndpointKey, receipts: boolean, where: string, ...params: unknown[]): Promise<RawRow[]> {
  const receipt = receipts ? `"receipt"` : `'{}'::jsonb AS "receipt"`;
  return rows<RawRow>(
    tx,
    `SELECT ${OBSERVATION_COLUMNS} FROM (
       SELECT "id", "check", "kind", "outcome", "value", "observedAt", "vantage", "revision", ${receipt} FROM "trust_observations" WHERE ${K} AND (${where})
       UNION ALL
       SELECT r."id", r."check", r."kind", r."outcome", r."value", r."observedAt", r."vantage", r."revision", ${receipts ? `r."receipt"` : receipt}
       FROM "trust_observations_archive" a, jsonb_populate_record(NULL::"trust_observations", a."row") r
       WHERE a."listingId" = $1 AND a."method" = $2 AND a."path" = $3 AND NOT EXISTS (SELECT 1 FROM "trust_observations" l WHERE l."id" = a."id") AND (${where.replaceAll(`"observedAt"`, `a."observedAt"`)})
     ) x ORDER BY x."observedAt", x."check", x."id"`,
    key.listingId,
    key.method,
    key.path,
    ...params,
  );
}

const asObservation = (r: RawRow): Observation => ({ endpointId: "", check: r.check, kind: r.kind, outcome: r.outcome, value: r.value === null ? null : Number(r.value), observedAt: r.observedAt, vantage: r.vantage, revision: r.revision, receipt: {} });

async function upsert(tx: Client, key: EndpointKey, grain: "hour" | "day", b: RollupBucket, count: number): Promise<void> {
  await rows(
    tx,
    `INSERT INTO "trust_observation_rollups" ("listingId", "method", "path", "grain", "start", "end", "checks", "observations", "updatedAt")
     VALUES ($1, $2, $3, $4, ${utcParam(5)}, ${utcParam(6)}, $7::jsonb, $8, ${NOW_UTC})
     ON CONFLICT ("listingId", "method", "path", "grain", "start") DO UPDATE SET "checks" = EXCLUDED."checks", "observations" = EXCLUDED."observations", "updatedAt" = EXCLUDED."updatedAt"
     RETURNING "grain"`,
    key.listingId, key.method, key.path, grain, new Date(b.start).toISOString(), new Date(b.end).toISOString(), JSON.stringify(b.checks), count,
  );
}

const countOf = (b: RollupBucket) => Object.values(b.checks).reduce((n, c) => n + (c.paid?.length ?? 0) + Object.values(c.rev ?? {}).reduce((m, r) => m + r.all, 0), 0);

async function rollHours(tx: Client, rubric: TrustRubric, key: EndpointKey, hours: number[]): Promise<void> {
  const days = new Set<number>();
  for (const h of hours) {
    const list = (await endpointRows(tx, key, false, `"observedAt" >= ${utcParam(4)} AND "observedAt" < ${utcParam(5)}`, new Date(h).toISOString(), new Date(h + ROLLUP_HOUR_MS).toISOString())).map(asObservation);
    const b = rollupOf(rubric, list, h, h + ROLLUP_HOUR_MS);
    await upsert(tx, key, "hour", b, list.length);
    days.add(dayOf(h));
  }
  for (const d of days) await rollDay(tx, key, d);
}

async function rollDay(tx: Client, key: EndpointKey, d: number): Promise<void> {
  const hourRows = await rows<{ start: string; checks: RollupBucket["checks"] }>(
    tx,
    `SELECT ${isoOf(`"start"`)} AS "start", "checks" FROM "trust_observation_rollups" WHERE ${K} AND "grain" = 'hour' AND "start" >= ${utcParam(4)} AND "start" < ${utcParam(5)} ORDER BY "start"`,
    key.listingId, key.method, key.path, new Date(d).toISOString(), new Date(d + ROLLUP_DAY_MS).toISOString(),
  );
  const buckets = hourRows.map((r) => ({ start: Date.parse(r.start), end: Date.parse(r.start) + ROLLUP_HOUR_MS, checks: r.checks }));
  const day = mergeRollups(buckets, { start: d, end: d + ROLLUP_DAY_MS });
  await upsert(tx, key, "day", day, countOf(day));
}

/** After the writer's rows are in: their hours rolled up again, or on first write the whole history (endpoint then covered). Caller holds the advisory lock. */
export async function rollUp(tx: Client, rubric: TrustRubric, key: EndpointKey, instants: string[]): Promise<void> {
  await rows(tx, `SELECT true AS "locked" FROM pg_advisory_xact_lock(hashtextextended($1, 7402))`, `trust:${key.listingId} ${key.method} ${key.path}`);
  const [covered] = await rows<{ ok: boolean }>(tx, `SELECT true AS "ok" FROM "trust_rollup_coverage" WHERE ${K}`, key.listingId, key.method, key.path);
  let hours: number[];
  if (covered) hours = [...new Set(instants.map((t) => hourOf(Date.parse(t))))];
  else {
    const all = await rows<{ hour: string }>(tx, `SELECT DISTINCT ${isoOf(`date_trunc('hour', "observedAt")`)} AS "hour" FROM "trust_observations" WHERE ${K}`, key.listingId, key.method, key.path);
    hours = all.map((r) => Date.parse(r.hour));
    await rows(tx, `INSERT INTO "trust_rollup_coverage" ("listingId", "method", "path", "since") VALUES ($1, $2, $3, ${NOW_UTC}) RETURNING "since"`, key.listingId, key.method, key.path);
  }
  await rollHours(tx, rubric, key, hours.sort((a, b) => a - b));
}

/** The engine's longest window plus two days. */
export function rawWindowDays(rubric: TrustRubric): number {
  const f = rubric.file;
  return Math.max(f.outlook.baseline_days, f.outlook.recent_days, f.verdict.paid_within_days) + 2;
}

/** One batch of rolled-up rows before `before` copied to the archive, then deleted (the trigger checks both). */
export async function archiveObservations(client: Client, rubric: TrustRubric, opts: { before?: Date; limit?: number } = {}): Promise<number> {
  const before = opts.before ?? new Date(Date.now() - rawWindowDays(rubric) * ROLLUP_DAY_MS);
  return transaction(client, async (tx) => {
    const picked = await rows<{ id: string }>(
      tx,
      `SELECT o."id" FROM "trust_observations" o
       JOIN "trust_rollup_coverage" c ON c."listingId" = o."listingId" AND c."method" = o."method" AND c."path" = o."path"
       WHERE o."observedAt" < ${utcParam(1)}
       ORDER BY o."observedAt" LIMIT $2::int`,
      before.toISOString(),
      opts.limit ?? 5000,
    );
    if (picked.length === 0) return 0;
    const ids = picked.map((p) => p.id);
    await rows(
      tx,
      `INSERT INTO "trust_observations_archive" ("id", "listingId", "method", "path", "observedAt", "archivedAt", "row")
       SELECT o."id", o."listingId", o."method", o."path", o."observedAt", ${NOW_UTC}, to_jsonb(o) FROM "trust_observations" o WHERE o."id" = ANY ($1::text[])
       RETURNING "id"`,
      ids,
    );
    const gone = await rows<{ id: string }>(tx, `DELETE FROM "trust_observations" WHERE "id" = ANY ($1::text[]) RETURNING "id"`, ids);
    return gone.length;
  });
}
