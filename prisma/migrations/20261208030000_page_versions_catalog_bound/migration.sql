-- The `catalog` tag moves only with what a seller or a moderator writes (docs/SURFACES.md "Cached
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
