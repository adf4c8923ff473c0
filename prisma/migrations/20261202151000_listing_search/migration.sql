-- Search reads a narrow copy of each listing's searchable columns (docs/FEEDS.md "How the search
-- statement runs"). A full-text query for a common pair of words ranks every one of its matches
-- (~13,000 at 100,000 listings); in the wide listings heap (about 1.6 kB a row once ranked, over
-- 200 MB) those rows sit on nearly every page, which under a shared cache are read from the OS
-- (138–171 ms for one such query), while this copy (~280 bytes a row, 28 MB) stays cached (15 ms).
-- A trigger keeps it, so every writer keeps it right; writes that change only other columns (the
-- rank sweep's) do not touch it.
CREATE TABLE "listing_search" (
    "id" TEXT NOT NULL,
    "publicationState" "PublicationState" NOT NULL,
    "title" TEXT NOT NULL,
    "category" TEXT,
    "networks" TEXT[],
    "protocols" TEXT[],
    "searchVector" tsvector,

    CONSTRAINT "listing_search_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "listing_search_id_fkey" FOREIGN KEY ("id") REFERENCES "listings"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

INSERT INTO "listing_search" ("id", "publicationState", "title", "category", "networks", "protocols", "searchVector")
  SELECT "id", "publicationState", "title", "category", "networks", "protocols", "searchVector" FROM "listings";

CREATE INDEX "listing_search_searchVector_idx" ON "listing_search" USING GIN ("searchVector");
CREATE INDEX "listing_search_title_trgm_idx" ON "listing_search" USING GIN ("title" gin_trgm_ops);

-- AFTER the BEFORE trigger "listings_search" has set NEW."searchVector". The column list names every
-- column copied or feeding the vector; the endpoints trigger's `SET "title" = "title"` is among them.
CREATE FUNCTION tollgate_listing_search_copy() RETURNS trigger AS $$
BEGIN
  INSERT INTO "listing_search" ("id", "publicationState", "title", "category", "networks", "protocols", "searchVector")
    VALUES (NEW."id", NEW."publicationState", NEW."title", NEW."category", NEW."networks", NEW."protocols", NEW."searchVector")
  ON CONFLICT ("id") DO UPDATE SET
    "publicationState" = EXCLUDED."publicationState", "title" = EXCLUDED."title", "category" = EXCLUDED."category",
    "networks" = EXCLUDED."networks", "protocols" = EXCLUDED."protocols", "searchVector" = EXCLUDED."searchVector";
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER "listings_search_copy" AFTER INSERT OR UPDATE OF "title", "shortDescription", "description", "category",
    "networks", "protocols", "publicationState", "searchVector"
  ON "listings" FOR EACH ROW EXECUTE FUNCTION tollgate_listing_search_copy();

-- Search no longer reads these; without them a listing write (a rank sweep's included) maintains two
-- GIN indexes fewer.
DROP INDEX IF EXISTS "listings_searchVector_idx";
DROP INDEX IF EXISTS "listings_title_trgm_idx";
