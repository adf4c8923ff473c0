-- Bounded history (docs/TRUST.md "Bounded history", issue #33 item 1). The writer of trust_observations
-- (lib/trust/observe/store.ts) keeps each endpoint's hour and day rollups in the same transaction as the
-- rows; a score reads the rollups plus a raw tail (lib/trust/observe/read.ts). Rows older than the
-- window the engine still reads as rows move to an append-only archive, never deleted silently.

-- The rollups: derived statistics, rewritten from the rows (an hour) or its hours (a day) on each write.
CREATE TABLE "trust_observation_rollups" (
    "listingId" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "grain" TEXT NOT NULL,
    "start" TIMESTAMP(3) NOT NULL,
    "end" TIMESTAMP(3) NOT NULL,
    -- lib/trust/engine/rollup.ts RollupBucket["checks"]
    "checks" JSONB NOT NULL,
    "observations" INTEGER NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "trust_observation_rollups_pkey" PRIMARY KEY ("listingId", "method", "path", "grain", "start"),
    CONSTRAINT "trust_observation_rollups_grain" CHECK (("grain" = 'hour' AND "end" = "start" + interval '1 hour' AND date_trunc('hour', "start") = "start")
                                                     OR ("grain" = 'day' AND "end" = "start" + interval '1 day' AND date_trunc('day', "start") = "start")),
    CONSTRAINT "trust_observation_rollups_checks" CHECK (jsonb_typeof("checks") = 'object')
);

-- Endpoints whose rollups hold their whole history (written on the endpoint's first write after this
-- migration, which rolls up the rows it already had); an endpoint without a row is read raw.
CREATE TABLE "trust_rollup_coverage" (
    "listingId" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "since" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "trust_rollup_coverage_pkey" PRIMARY KEY ("listingId", "method", "path")
);

-- The archive: each moved row as it was (to_jsonb), append-only like the queue's archives.
CREATE TABLE "trust_observations_archive" (
    "id" TEXT NOT NULL,
    "listingId" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "observedAt" TIMESTAMP(3) NOT NULL,
    "archivedAt" TIMESTAMP(3) NOT NULL DEFAULT (now() AT TIME ZONE 'UTC'),
    "row" JSONB NOT NULL,
    CONSTRAINT "trust_observations_archive_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "trust_observations_archive_endpoint_idx" ON "trust_observations_archive" ("listingId", "method", "path", "observedAt");

CREATE TRIGGER "trust_observations_archive_append_only" BEFORE UPDATE OR DELETE ON "trust_observations_archive"
  FOR EACH ROW EXECUTE FUNCTION tollgate_results_immutable();
CREATE TRIGGER "trust_observations_archive_no_truncate" BEFORE TRUNCATE ON "trust_observations_archive"
  FOR EACH STATEMENT EXECUTE FUNCTION tollgate_archive_no_truncate();

-- trust_observations stays immutable except for one move: a row may be deleted only when the archive
-- already holds exactly it (same id, same content) and its endpoint's rollups cover it.
CREATE OR REPLACE FUNCTION tollgate_trust_observation_immutable() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'DELETE'
     AND EXISTS (SELECT 1 FROM "trust_observations_archive" x WHERE x."id" = OLD."id" AND x."row" = to_jsonb(OLD))
     AND EXISTS (SELECT 1 FROM "trust_rollup_coverage" c
                 WHERE c."listingId" = OLD."listingId" AND c."method" = OLD."method" AND c."path" = OLD."path")
     AND EXISTS (SELECT 1 FROM "trust_observation_rollups" r
                 WHERE r."listingId" = OLD."listingId" AND r."method" = OLD."method" AND r."path" = OLD."path"
                   AND r."start" <= OLD."observedAt" AND OLD."observedAt" < r."end") THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'trust_observations rows are immutable (% refused; only a row already copied to trust_observations_archive and rolled up may leave)', TG_OP
    USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;

-- A listing with archived observations keeps its history too.
CREATE OR REPLACE FUNCTION tollgate_listing_keeps_history() RETURNS trigger AS $$
DECLARE
  t text;
  found boolean;
BEGIN
  FOREACH t IN ARRAY ARRAY['router_payments', 'monitor_health_samples', 'price_quotes', 'probe_evidence', 'catalog_scoring_results',
                           'canary_runs', 'canary_samples', 'trust_observations', 'trust_observations_archive', 'trust_endpoint_revisions', 'moderation_audit'] LOOP
    EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I WHERE "listingId" = $1)', t) INTO found USING OLD."id";
    IF found THEN
      RAISE EXCEPTION 'listing % keeps history in %: DELETE refused (delete it as a tombstone: deletedAt)', OLD."id", t USING ERRCODE = 'insufficient_privilege';
    END IF;
  END LOOP;
  RETURN OLD;
END;
$$ LANGUAGE plpgsql;
