-- Rank moves out of "listings" into a narrow table of its own (docs/RANK.md "Storage").
--
-- Before, every rank sweep rewrote every listings row it re-ranked: rankScore sat in two listing
-- indexes, so no update was HOT, and each one re-inserted into every index of the table (the GIN
-- full-text and trigram indexes included) and re-TOASTed a ~2 KB components document. Here a rank
-- write touches one narrow row and two small indexes, and the wide listings row is never rewritten
-- by the sweep.
--
-- The browse key (tier, sortWeight, rankScore, published) must be covered by ONE index for keyset
-- pages to be index-ordered, so "listing_ranks" carries a copy of the listing's tier, sortWeight,
-- publication state and category (the browse view's main filter), kept in step by triggers on
-- "listings" (a row for every listing from its INSERT on; a curation edit, a publication change or
-- a new category updates the copy in the same statement).

CREATE TABLE "listing_ranks" (
    "listingId" TEXT NOT NULL,
    -- The browse key's copy of the listing's curation levers (trigger-maintained, never written by the app).
    "tier" INTEGER NOT NULL,
    "sortWeight" INTEGER NOT NULL,
    "published" BOOLEAN NOT NULL,
    "category" TEXT,
    -- Internal only (admin): stored unrounded.
    "qualityScore" DOUBLE PRECISION,
    "rankScore" DOUBLE PRECISION,
    -- The settle gate ("settleable" | "unknown" | "unpayable"); router selection drops unpayable.
    "gate" TEXT,
    -- Compact components: each factor's value, e.g. {"gate":"settleable","liveness":0.95,...}.
    "components" JSONB,
    -- The inputs the score was computed from (RankInputs without "now", a flat positional array led
    -- by its version: lib/ledger/rank-sweep.ts rankInputsDocument), the very document the inputs
    -- hash is taken over; with rankedAt as "now" computeRank reproduces every component, reason and fact.
    "facts" JSONB,
    "inputsHash" TEXT,
    "rankedAt" TIMESTAMP(3),
    CONSTRAINT "listing_ranks_pkey" PRIMARY KEY ("listingId"),
    CONSTRAINT "listing_ranks_listingId_fkey" FOREIGN KEY ("listingId") REFERENCES "listings"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- Every listing has its row; the scores of already ranked listings move across. The stored hash
-- does not (the inputs document changed shape), so the next sweep re-ranks everyone once.
INSERT INTO "listing_ranks" ("listingId", "tier", "sortWeight", "published", "category", "qualityScore", "rankScore", "gate", "rankedAt")
SELECT l."id", l."tier", l."sortWeight", l."publicationState" = 'published', l."category", l."qualityScore", l."rankScore",
       l."rankComponents" -> 'gate' ->> 'gate', l."rankedAt"
  FROM "listings" l;

CREATE FUNCTION tollgate_listing_rank_row() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "listing_ranks" ("listingId", "tier", "sortWeight", "published", "category")
    VALUES (NEW."id", NEW."tier", NEW."sortWeight", NEW."publicationState" = 'published', NEW."category");
  ELSE
    UPDATE "listing_ranks"
       SET "tier" = NEW."tier", "sortWeight" = NEW."sortWeight", "published" = NEW."publicationState" = 'published',
           "category" = NEW."category"
     WHERE "listingId" = NEW."id";
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER "listings_rank_row_insert" AFTER INSERT ON "listings"
  FOR EACH ROW EXECUTE FUNCTION tollgate_listing_rank_row();
-- Only when a browse-key column really changed, so ordinary listing edits cost nothing here.
CREATE TRIGGER "listings_rank_row_update" AFTER UPDATE OF "tier", "sortWeight", "publicationState", "category" ON "listings"
  FOR EACH ROW
  WHEN (OLD."tier" IS DISTINCT FROM NEW."tier" OR OLD."sortWeight" IS DISTINCT FROM NEW."sortWeight"
        OR OLD."publicationState" IS DISTINCT FROM NEW."publicationState" OR OLD."category" IS DISTINCT FROM NEW."category")
  EXECUTE FUNCTION tollgate_listing_rank_row();

-- Browse order (docs/RANK.md): tier ASC, sortWeight DESC, rankScore DESC NULLS LAST, then the seeded
-- shuffle of the listing id. The keyset predicate compares negated columns, so the index holds those
-- expressions; it carries the id, the raw key columns and the category, so a page, the cursor's tie
-- group sorted by the shuffle key, and a category filter are all read from the index alone
-- (an index-only scan: listing_ranks is small and vacuumed often).
CREATE INDEX "listing_ranks_browse_idx" ON "listing_ranks" ("tier", (-"sortWeight"), (-COALESCE("rankScore", -1)))
  INCLUDE ("listingId", "sortWeight", "rankScore", "category") WHERE "published";

DROP INDEX "listings_browse_idx";
DROP INDEX "listings_publicationState_tier_sortWeight_rankScore_idx";
ALTER TABLE "listings" DROP COLUMN "qualityScore", DROP COLUMN "rankScore", DROP COLUMN "rankComponents",
  DROP COLUMN "rankInputsHash", DROP COLUMN "rankedAt";

-- Concatenates arrays across rows (array_agg needs equal-length arrays): the sweep gathers each
-- listing's settled amounts per payer, then per listing, in one pass over router_payments.
CREATE AGGREGATE tollgate_array_cat_agg(anycompatiblearray) (
  SFUNC = array_cat, STYPE = anycompatiblearray, COMBINEFUNC = array_cat, PARALLEL = SAFE
);
