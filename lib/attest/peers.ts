/** Each category's value peers, stored by the attest sweep so a listing page reads one row (docs/TRUST.md "The value metrics on the pages"). */
import { publicSql } from "@/lib/listings/visibility";
import { isoOf, rows, utcParam, type Client } from "@/lib/sql";
import type { TrustRubric } from "@/lib/trust/engine";

/** Recomputed after a sweep run that wrote a grade, and at least this often: prices, categories and publication change without one. */
export const PEERS_REFRESH_MS = 10 * 60_000;

export interface StoredPeer {
  endpointId: string;
  priceUsd: string;
  /** The peer rule's checks' rates from the endpoint's latest stored grade (`detail.scored`). */
  rates: Record<string, number | null> | null;
}

/**
 * Every category's peers in one statement: each priced endpoint of a public listing whose latest stored
 * grade kept its checks, in listing and endpoint order; a category left with none loses its row. With
 * `ofListings`, only the categories those listings are in now (a sweep run's new grades), so a run that
 * graded a few listings does not read the whole catalog; a listing's former category waits for the next
 * full gathering.
 */
export async function refreshCategoryPeers(client: Client, rubric: TrustRubric, now: Date, ofListings?: readonly string[]): Promise<void> {
  if (ofListings && ofListings.length === 0) return;
  const inScope = (category: string) => `($3::text[] IS NULL OR ${category} IN (SELECT s."category" FROM "listings" s WHERE s."id" = ANY($3::text[])))`;
  await rows(
    client,
    `WITH found AS (
       SELECT l."category", l."id" AS lid, e."position", e."id" AS "endpointId", e."priceUsd",
              (SELECT jsonb_object_agg(c->>'id', c->'rate') FROM jsonb_array_elements(g."detail"->'scored'->'checks') c WHERE c->>'id' = ANY($1::text[])) AS rates
         FROM "listings" l
         JOIN "endpoints" e ON e."listingId" = l."id"
         JOIN "trust_grade_latest" p ON p."listingId" = l."id" AND p."method" = e."method"::text AND p."path" = e."trustPath"
         JOIN "trust_grades" g ON g."id" = p."gradeId"
        WHERE l."category" IS NOT NULL AND ${inScope(`l."category"`)} AND ${publicSql("l")} AND e."priceUsd" IS NOT NULL AND g."detail"->'scored' IS NOT NULL),
     agg AS (
       SELECT "category", jsonb_agg(jsonb_build_object('endpointId', "endpointId", 'priceUsd', "priceUsd", 'rates', rates) ORDER BY lid, "position") AS peers
         FROM found GROUP BY "category"),
     gone AS (DELETE FROM "trust_category_peers" t WHERE ${inScope(`t."category"`)} AND NOT EXISTS (SELECT 1 FROM agg a WHERE a."category" = t."category"))
     INSERT INTO "trust_category_peers" ("category", "peers", "computedAt")
     SELECT "category", peers, ${utcParam(2)} FROM agg
     ON CONFLICT ("category") DO UPDATE SET "peers" = EXCLUDED."peers", "computedAt" = EXCLUDED."computedAt"`,
    rubric.pricePeers.checks,
    now.toISOString(),
    ofListings ? [...ofListings] : null,
  );
}

/**
 * A full gathering is due: no category's peers computed yet, or the oldest older than PEERS_REFRESH_MS
 * at `now` (a full gathering rewrites every row; a run's partial one only its categories').
 */
export async function categoryPeersDue(client: Client, now: Date): Promise<boolean> {
  const [{ at }] = await rows<{ at: string | null }>(client, `SELECT ${isoOf(`min("computedAt")`)} AS "at" FROM "trust_category_peers"`);
  return at === null || now.getTime() - Date.parse(at) >= PEERS_REFRESH_MS;
}

/** The category's stored peers; none when the sweep has stored none. */
export async function readCategoryPeers(client: Client, category: string): Promise<StoredPeer[]> {
  const [found] = await rows<{ peers: StoredPeer[] }>(client, `SELECT "peers" FROM "trust_category_peers" WHERE "category" = $1`, category);
  return found?.peers ?? [];
}
