-- The rank tick (lib/ledger/rank-sweep.ts runRankTick) re-ranks only the listings whose inputs may
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
--    first instant at which that happens for the listing (aggregate.ts, "dueAtMs"); null when none.
--
-- No foreign key: a mark may outlive its listing (a cascade deleting a listing's payments marks it);
-- the tick finds no facts for it and the claim has already removed it.
CREATE TABLE "rank_dirty" (
    "listingId" TEXT NOT NULL,
    "markedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "rank_dirty_pkey" PRIMARY KEY ("listingId")
);

ALTER TABLE "listing_ranks" ADD COLUMN "rankDueAt" TIMESTAMP(3);

-- The listing ids of the statement's rows, distinct and in order (two statements marking the same
-- listings lock their marks in the same order), upserted as marks.
CREATE FUNCTION tollgate_rank_dirty_new() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "rank_dirty" ("listingId")
    SELECT DISTINCT "listingId" FROM new_rows WHERE "listingId" IS NOT NULL ORDER BY 1
    ON CONFLICT ("listingId") DO UPDATE SET "markedAt" = EXCLUDED."markedAt";
  RETURN NULL;
END $$;
CREATE FUNCTION tollgate_rank_dirty_old() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "rank_dirty" ("listingId")
    SELECT DISTINCT "listingId" FROM old_rows WHERE "listingId" IS NOT NULL ORDER BY 1
    ON CONFLICT ("listingId") DO UPDATE SET "markedAt" = EXCLUDED."markedAt";
  RETURN NULL;
END $$;
CREATE FUNCTION tollgate_rank_dirty_both() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "rank_dirty" ("listingId")
    SELECT "listingId" FROM (SELECT "listingId" FROM new_rows UNION SELECT "listingId" FROM old_rows) x
     WHERE "listingId" IS NOT NULL ORDER BY 1
    ON CONFLICT ("listingId") DO UPDATE SET "markedAt" = EXCLUDED."markedAt";
  RETURN NULL;
END $$;

-- A trigger with transition tables fires on one event only, so each table has three.
CREATE TRIGGER "router_payments_rank_dirty_insert" AFTER INSERT ON "router_payments"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION tollgate_rank_dirty_new();
CREATE TRIGGER "router_payments_rank_dirty_update" AFTER UPDATE ON "router_payments"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION tollgate_rank_dirty_both();
CREATE TRIGGER "router_payments_rank_dirty_delete" AFTER DELETE ON "router_payments"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION tollgate_rank_dirty_old();

CREATE TRIGGER "monitor_health_samples_rank_dirty_insert" AFTER INSERT ON "monitor_health_samples"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION tollgate_rank_dirty_new();
CREATE TRIGGER "monitor_health_samples_rank_dirty_update" AFTER UPDATE ON "monitor_health_samples"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION tollgate_rank_dirty_both();
CREATE TRIGGER "monitor_health_samples_rank_dirty_delete" AFTER DELETE ON "monitor_health_samples"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION tollgate_rank_dirty_old();

CREATE TRIGGER "price_quotes_rank_dirty_insert" AFTER INSERT ON "price_quotes"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION tollgate_rank_dirty_new();
CREATE TRIGGER "price_quotes_rank_dirty_update" AFTER UPDATE ON "price_quotes"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION tollgate_rank_dirty_both();
CREATE TRIGGER "price_quotes_rank_dirty_delete" AFTER DELETE ON "price_quotes"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION tollgate_rank_dirty_old();

CREATE TRIGGER "endpoints_rank_dirty_insert" AFTER INSERT ON "endpoints"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION tollgate_rank_dirty_new();
CREATE TRIGGER "endpoints_rank_dirty_update" AFTER UPDATE ON "endpoints"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION tollgate_rank_dirty_both();
CREATE TRIGGER "endpoints_rank_dirty_delete" AFTER DELETE ON "endpoints"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION tollgate_rank_dirty_old();

-- The listing's own rank inputs (aggregate.ts reads these four columns). A new listing needs no
-- mark: its rank row starts unranked (inputsHash null), which the tick takes as due.
CREATE FUNCTION tollgate_rank_dirty_listing() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "rank_dirty" ("listingId")
    SELECT n."id" FROM new_rows n JOIN old_rows o ON o."id" = n."id"
     WHERE n."publicationState" IS DISTINCT FROM o."publicationState" OR n."featuredLevel" IS DISTINCT FROM o."featuredLevel"
        OR n."verificationStatus" IS DISTINCT FROM o."verificationStatus" OR n."healthStatus" IS DISTINCT FROM o."healthStatus"
     ORDER BY 1
    ON CONFLICT ("listingId") DO UPDATE SET "markedAt" = EXCLUDED."markedAt";
  RETURN NULL;
END $$;
CREATE TRIGGER "listings_rank_dirty_update" AFTER UPDATE ON "listings"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION tollgate_rank_dirty_listing();
