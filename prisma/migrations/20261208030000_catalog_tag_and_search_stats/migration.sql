-- 1. The `catalog` tag moves only with what a seller or a moderator writes (docs/SURFACES.md "Cached
-- public pages"): the sweeps' per-listing results (rank score, stored grade, health and verification
-- status, the readiness pointer) move the listing's own tag, and the catalog pages pick them up by age
-- (lib/catalog/page-cache.ts CATALOG_REFRESH_MS). Under a running sweep the `catalog` row was written
-- by every listing's commit, so the catalog pages were never served from the cache and every
-- concurrent sweep commit queued on that one row.

-- The listing row: its own pages on any change; the catalog pages unless only the sweeps' columns moved.
DROP TRIGGER "listings_page_mark_update" ON "listings";
CREATE TRIGGER "listings_page_mark_update" AFTER UPDATE ON "listings" FOR EACH ROW
  WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION tollgate_page_mark('id', 'listing');
CREATE TRIGGER "listings_page_mark_update_catalog" AFTER UPDATE ON "listings" FOR EACH ROW
  WHEN ((to_jsonb(OLD) - ARRAY['healthStatus', 'verificationStatus', 'currentResultId', 'rubricNoticeVersion', 'updatedAt'])
        IS DISTINCT FROM (to_jsonb(NEW) - ARRAY['healthStatus', 'verificationStatus', 'currentResultId', 'rubricNoticeVersion', 'updatedAt']))
  EXECUTE FUNCTION tollgate_page_mark('id', 'catalog');

-- The browse order: the rank score by age; the levers (tier, sort weight) and what hides or moves a
-- listing (published, category, gate) at once.
DROP TRIGGER "listing_ranks_page_mark_update" ON "listing_ranks";
DROP TRIGGER "listing_ranks_page_flush_update" ON "listing_ranks";
CREATE TRIGGER "listing_ranks_page_mark_update" AFTER UPDATE ON "listing_ranks" FOR EACH ROW
  WHEN ((OLD."tier", OLD."sortWeight", OLD."published", OLD."category", OLD."gate") IS DISTINCT FROM (NEW."tier", NEW."sortWeight", NEW."published", NEW."category", NEW."gate"))
  EXECUTE FUNCTION tollgate_page_mark('listingId', 'catalog');
CREATE CONSTRAINT TRIGGER "listing_ranks_page_flush_update" AFTER UPDATE ON "listing_ranks" DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN ((OLD."tier", OLD."sortWeight", OLD."published", OLD."category", OLD."gate") IS DISTINCT FROM (NEW."tier", NEW."sortWeight", NEW."published", NEW."category", NEW."gate"))
  EXECUTE FUNCTION tollgate_page_flush();

-- A new stored trust grade: the listing page and the endpoint page at once; the tiles' glances by age.
DROP TRIGGER "trust_grade_latest_page_mark_insert_delete" ON "trust_grade_latest";
DROP TRIGGER "trust_grade_latest_page_mark_update" ON "trust_grade_latest";
CREATE TRIGGER "trust_grade_latest_page_mark_insert_delete" AFTER INSERT OR DELETE ON "trust_grade_latest" FOR EACH ROW
  EXECUTE FUNCTION tollgate_page_mark('listingId', 'listing');
CREATE TRIGGER "trust_grade_latest_page_mark_update" AFTER UPDATE ON "trust_grade_latest" FOR EACH ROW
  WHEN (OLD."gradeId" IS DISTINCT FROM NEW."gradeId") EXECUTE FUNCTION tollgate_page_mark('listingId', 'listing');

-- 2. listing_search_stats (migration 20261207090000) was updated by a row trigger at the write, so its
-- one row stayed locked until the writer's commit and concurrent listing edits queued behind each
-- other for the rest of their transactions (docs/BENCHMARKS.md "bench:commits"). The row trigger now
-- adds its delta to a transaction-local setting and a deferred trigger applies it once at commit, as
-- page_versions is written: the row is locked only for the commit, and a reader still sees the new
-- generation exactly when the write is visible. An update that changes nothing moves nothing.
CREATE OR REPLACE FUNCTION tollgate_listing_search_stats() RETURNS trigger AS $$
DECLARE
  delta integer := coalesce(nullif(current_setting('tollgate.search_stats', true), ''), '0')::integer;
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD."publicationState" = 'published' THEN delta := delta - 1; END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND NEW."publicationState" = 'published' THEN delta := delta + 1; END IF;
  PERFORM set_config('tollgate.search_stats', delta::text, true);
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE FUNCTION tollgate_listing_search_stats_flush() RETURNS trigger AS $$
DECLARE
  pending TEXT := coalesce(current_setting('tollgate.search_stats', true), '');
BEGIN
  IF pending = '' THEN RETURN NULL; END IF;
  PERFORM set_config('tollgate.search_stats', '', true);
  UPDATE "listing_search_stats" SET "publicListings" = "publicListings" + pending::integer, "generation" = "generation" + 1 WHERE "id" = 1;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

DROP TRIGGER "listing_search_stats" ON "listing_search";
CREATE TRIGGER "listing_search_stats" AFTER INSERT OR DELETE ON "listing_search"
  FOR EACH ROW EXECUTE FUNCTION tollgate_listing_search_stats();
CREATE TRIGGER "listing_search_stats_update" AFTER UPDATE ON "listing_search"
  FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION tollgate_listing_search_stats();
CREATE CONSTRAINT TRIGGER "listing_search_stats_flush" AFTER INSERT OR DELETE ON "listing_search" DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION tollgate_listing_search_stats_flush();
CREATE CONSTRAINT TRIGGER "listing_search_stats_flush_update" AFTER UPDATE ON "listing_search" DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION tollgate_listing_search_stats_flush();

-- A TRUNCATE empties the table: the count is 0 whatever this transaction's rows added before it.
CREATE OR REPLACE FUNCTION tollgate_listing_search_stats_truncate() RETURNS trigger AS $$
BEGIN
  PERFORM set_config('tollgate.search_stats', '', true);
  UPDATE "listing_search_stats" SET "publicListings" = 0, "generation" = "generation" + 1 WHERE "id" = 1;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
