-- Router selection weighs each task word by how many public listings hold it (docs/SELECTION.md
-- "Speed"). The count of public listings and a generation that moves on every write of
-- "listing_search" are kept here, in the same transaction as the write, so a reader knows exactly
-- when its cached document frequencies are still those of the table. One row.
CREATE TABLE "listing_search_stats" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "publicListings" INTEGER NOT NULL,
    "generation" BIGINT NOT NULL,
    CONSTRAINT "listing_search_stats_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "listing_search_stats_one_row" CHECK ("id" = 1)
);

INSERT INTO "listing_search_stats" ("id", "publicListings", "generation")
  SELECT 1, count(*) FILTER (WHERE "publicationState" = 'published'), 1 FROM "listing_search";

CREATE FUNCTION tollgate_listing_search_stats() RETURNS trigger AS $$
DECLARE
  delta integer := 0;
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD."publicationState" = 'published' THEN delta := delta - 1; END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND NEW."publicationState" = 'published' THEN delta := delta + 1; END IF;
  UPDATE "listing_search_stats" SET "publicListings" = "publicListings" + delta, "generation" = "generation" + 1 WHERE "id" = 1;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER "listing_search_stats" AFTER INSERT OR UPDATE OR DELETE ON "listing_search"
  FOR EACH ROW EXECUTE FUNCTION tollgate_listing_search_stats();

-- A TRUNCATE (a listings TRUNCATE … CASCADE reaches this table) fires no row trigger: it empties it.
CREATE FUNCTION tollgate_listing_search_stats_truncate() RETURNS trigger AS $$
BEGIN
  UPDATE "listing_search_stats" SET "publicListings" = 0, "generation" = "generation" + 1 WHERE "id" = 1;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER "listing_search_stats_truncate" AFTER TRUNCATE ON "listing_search"
  FOR EACH STATEMENT EXECUTE FUNCTION tollgate_listing_search_stats_truncate();
