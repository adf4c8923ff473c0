-- The rank tick (lib/ledger/rank-sweep.ts, runRankSweep({ mode: "due" })) re-ranks only the listings whose inputs may
-- have changed since they were last ranked, instead of reading every listing's facts every 30 seconds:
--
-- 1. A write to a rank input marks its listing in rank_dirty: statement-level triggers (one INSERT per
--    statement, whatever its row count) on the ledger, the health samples, the quotes and the
--    endpoints, and on the listing's own inputs (publication, Featured, verification, health baseline).
--    The mark is an upsert that always updates (never DO NOTHING): it row-locks an existing mark until
--    the writing transaction commits, so a tick that claims marks (DELETE … RETURNING) waits for the
--    writer and then reads facts that include its write. With DO NOTHING a mark could be claimed while
--    the write it stands for was still uncommitted, and that write would be missed.
-- 2. Time alone changes facts when a row leaves a rolling window: the sweep stores in rankDueAt the
--    first instant at which that happens for the listing (aggregate.ts factsDueAtMs); null when none.
--
-- No foreign key: a mark may outlive its listing (a cascade deleting a listing's payments marks it);
-- the tick finds no facts for it and the claim has already removed it.
CREATE TABLE "rank_dirty" (
    "listingId" TEXT NOT NULL,
    "markedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "rank_dirty_pkey" PRIMARY KEY ("listingId")
);

ALTER TABLE "listing_ranks" ADD COLUMN "rankDueAt" TIMESTAMP(3);

-- Marks these listings: distinct and in order (two statements marking the same listings lock their
-- marks in the same order), upserted.
CREATE FUNCTION tollgate_rank_mark(ids TEXT[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO "rank_dirty" ("listingId")
    SELECT DISTINCT id FROM unnest(ids) AS id WHERE id IS NOT NULL ORDER BY 1
    ON CONFLICT ("listingId") DO UPDATE SET "markedAt" = EXCLUDED."markedAt";
$$;

-- The statement's rows' listings: the new rows of an insert or update, the old rows of an update or
-- delete (an update may move a row to another listing).
CREATE FUNCTION tollgate_rank_dirty() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN PERFORM tollgate_rank_mark(ARRAY(SELECT "listingId" FROM new_rows)); END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN PERFORM tollgate_rank_mark(ARRAY(SELECT "listingId" FROM old_rows)); END IF;
  RETURN NULL;
END $$;

-- A trigger with transition tables fires on one event only, so each table has three:
-- <table>_rank_dirty_insert, _update and _delete.
DO $$
DECLARE
  t TEXT;
BEGIN
  FOREACH t IN ARRAY ARRAY['router_payments', 'monitor_health_samples', 'price_quotes', 'endpoints'] LOOP
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows
                      FOR EACH STATEMENT EXECUTE FUNCTION tollgate_rank_dirty()', t || '_rank_dirty_insert', t);
    EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
                      FOR EACH STATEMENT EXECUTE FUNCTION tollgate_rank_dirty()', t || '_rank_dirty_update', t);
    EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS old_rows
                      FOR EACH STATEMENT EXECUTE FUNCTION tollgate_rank_dirty()', t || '_rank_dirty_delete', t);
  END LOOP;
END $$;

-- The listing's own rank inputs (aggregate.ts reads these four columns). A new listing needs no
-- mark: its rank row starts unranked (inputsHash null), which the tick takes as due.
CREATE FUNCTION tollgate_rank_dirty_listing() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM tollgate_rank_mark(ARRAY(
    SELECT n."id" FROM new_rows n JOIN old_rows o ON o."id" = n."id"
     WHERE n."publicationState" IS DISTINCT FROM o."publicationState" OR n."featuredLevel" IS DISTINCT FROM o."featuredLevel"
        OR n."verificationStatus" IS DISTINCT FROM o."verificationStatus" OR n."healthStatus" IS DISTINCT FROM o."healthStatus"));
  RETURN NULL;
END $$;
CREATE TRIGGER "listings_rank_dirty_update" AFTER UPDATE ON "listings"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION tollgate_rank_dirty_listing();
