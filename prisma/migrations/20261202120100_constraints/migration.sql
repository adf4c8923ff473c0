-- Constraints and behaviour Prisma's schema language cannot express. See docs/DATA-MODEL.md.

-- Editorial levers stay in range (seed 004: Featured level 0–5).
ALTER TABLE "listings" ADD CONSTRAINT "listings_featured_level_range" CHECK ("featuredLevel" BETWEEN 0 AND 5);
ALTER TABLE "listings" ADD CONSTRAINT "listings_tier_nonnegative" CHECK ("tier" >= 0);
ALTER TABLE "catalog_scoring_analyses" ADD CONSTRAINT "analyses_attempts_nonnegative" CHECK ("attempts" >= 0 AND "maxAttempts" >= 1);
ALTER TABLE "catalog_scoring_analyses" ADD CONSTRAINT "analyses_running_has_lease"
  CHECK ("state" <> 'running' OR ("leaseToken" IS NOT NULL AND "leaseExpiresAt" IS NOT NULL));
ALTER TABLE "catalog_scoring_results" ADD CONSTRAINT "results_total_range" CHECK ("total" BETWEEN 0 AND 100);

-- One active analysis per submitter (seed 004 "Why the scores hold up").
CREATE UNIQUE INDEX "uniq_catalog_scoring_active_subject" ON "catalog_scoring_analyses" ("submitter")
  WHERE "state" IN ('deferred', 'queued', 'running');

-- The queue's state machine: deferred → queued → running → succeeded | failed, with running → queued
-- for an expired lease's retry. Terminal states never change.
CREATE FUNCTION tollgate_analysis_transition() RETURNS trigger AS $$
BEGIN
  IF NEW."state" = OLD."state" THEN
    RETURN NEW;
  END IF;
  IF (OLD."state" = 'deferred' AND NEW."state" IN ('queued', 'failed'))
     OR (OLD."state" = 'queued' AND NEW."state" IN ('running', 'deferred', 'failed'))
     OR (OLD."state" = 'running' AND NEW."state" IN ('queued', 'succeeded', 'failed')) THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'analysis % cannot move from % to %', OLD."id", OLD."state", NEW."state"
    USING ERRCODE = 'check_violation';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER "analyses_state_transition" BEFORE UPDATE OF "state" ON "catalog_scoring_analyses"
  FOR EACH ROW EXECUTE FUNCTION tollgate_analysis_transition();

-- Results are never rewritten (seed 004 "Results are never rewritten").
CREATE FUNCTION tollgate_results_immutable() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION 'catalog_scoring_results rows are immutable (% refused)', TG_OP
    USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER "results_immutable" BEFORE UPDATE OR DELETE ON "catalog_scoring_results"
  FOR EACH ROW EXECUTE FUNCTION tollgate_results_immutable();

-- The append-only attempt log likewise.
CREATE TRIGGER "attempts_append_only" BEFORE UPDATE OR DELETE ON "catalog_scoring_attempts"
  FOR EACH ROW EXECUTE FUNCTION tollgate_results_immutable();

-- A listing's published pointer names one of its own, non-provisional results.
CREATE FUNCTION tollgate_listing_pointer() RETURNS trigger AS $$
DECLARE
  r RECORD;
BEGIN
  IF NEW."currentResultId" IS NULL THEN
    RETURN NEW;
  END IF;
  SELECT "listingId", "provisional" INTO r FROM "catalog_scoring_results" WHERE "id" = NEW."currentResultId";
  IF NOT FOUND OR r."listingId" <> NEW."id" THEN
    RAISE EXCEPTION 'listing % cannot point at result % of another listing', NEW."id", NEW."currentResultId"
      USING ERRCODE = 'foreign_key_violation';
  END IF;
  IF r."provisional" THEN
    RAISE EXCEPTION 'a provisional result never becomes the published pointer (listing %)', NEW."id"
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER "listings_pointer_guard" BEFORE INSERT OR UPDATE OF "currentResultId" ON "listings"
  FOR EACH ROW EXECUTE FUNCTION tollgate_listing_pointer();

-- Full-text search over title (A), short description and category (B), description and endpoint
-- descriptions (C). Maintained here so every writer keeps it right.
CREATE FUNCTION tollgate_listing_search_vector(l "listings") RETURNS tsvector AS $$
  SELECT setweight(to_tsvector('english', coalesce(l."title", '')), 'A')
      || setweight(to_tsvector('english', coalesce(l."shortDescription", '') || ' ' || coalesce(l."category", '')), 'B')
      || setweight(to_tsvector('english', coalesce(l."description", '') || ' ' ||
           coalesce((SELECT string_agg(coalesce(e."description", '') || ' ' || e."path", ' ')
                     FROM "endpoints" e WHERE e."listingId" = l."id"), '')), 'C');
$$ LANGUAGE sql STABLE;

CREATE FUNCTION tollgate_listing_search() RETURNS trigger AS $$
BEGIN
  NEW."searchVector" := tollgate_listing_search_vector(NEW);
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER "listings_search" BEFORE INSERT OR UPDATE OF "title", "shortDescription", "description", "category"
  ON "listings" FOR EACH ROW EXECUTE FUNCTION tollgate_listing_search();

CREATE FUNCTION tollgate_endpoint_search() RETURNS trigger AS $$
BEGIN
  UPDATE "listings" SET "title" = "title"
    WHERE "id" = CASE WHEN TG_OP = 'DELETE' THEN OLD."listingId" ELSE NEW."listingId" END;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER "endpoints_search" AFTER INSERT OR UPDATE OR DELETE ON "endpoints"
  FOR EACH ROW EXECUTE FUNCTION tollgate_endpoint_search();

-- Trigram similarity for typos in titles (pg_trgm ships with PostgreSQL and with PGlite).
CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public;
CREATE INDEX "listings_title_trgm_idx" ON "listings" USING GIN ("title" gin_trgm_ops);
