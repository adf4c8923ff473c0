-- The queue's hot path, second pass (lib/analyses/lease.ts, docs/QUEUE.md "Throughput"). Every claim
-- and every completion is a non-HOT update of catalog_scoring_analyses plus one attempt-log row, so
-- each index on the table and each check on the log is paid once per job and per transition.

-- 1. The (state, runAfter, priority) index goes. The claim reads analyses_claim_order (partial,
--    queued rows only, in claim order) and the reaper analyses_running_lease; this one served
--    neither, yet every claim and every completion inserted a new entry into it (on a table without
--    statistics the planner even took it for the claim, then sorted the whole backlog; 4 below is
--    what keeps the claim in index order). Counting analyses by state (the depth gauge, the
--    moderators' desk) now reads the table itself, a scan that grows with the queue's history.
DROP INDEX "catalog_scoring_analyses_state_runAfter_priority_idx";

-- 2. The attempt log's foreign key goes. Its row check (SELECT … FOR KEY SHARE on the analysis the
--    same statement has just updated) cost more than any other single part of a claim or a
--    completion under concurrency: with 4 workers, claim-and-complete went from 21,500 to 27,400
--    jobs/s without it (side-by-side runs of the same claim and completion SQL, docs/QUEUE.md). What the key
--    guaranteed still holds by construction: lease.ts writes log rows only in the same statement
--    that moves the analysis row, from that statement's RETURNING, so every logged analysisId
--    exists; and analyses are never deleted (below), so none can go missing later.
ALTER TABLE "catalog_scoring_attempts" DROP CONSTRAINT "catalog_scoring_attempts_analysisId_fkey";

-- An analysis with a history is history itself: refuse deleting it (and so the cascade from a
-- deleted listing), as the log's own append-only trigger refused deleting its rows before. Without
-- the foreign key, this is what keeps the log from ever naming an analysis that is gone.
CREATE FUNCTION tollgate_analysis_keep_history() RETURNS trigger AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM "catalog_scoring_attempts" WHERE "analysisId" = OLD."id") THEN
    RAISE EXCEPTION 'analysis % has an attempt log and cannot be deleted', OLD."id"
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  RETURN OLD;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER "analyses_keep_history" BEFORE DELETE ON "catalog_scoring_analyses"
  FOR EACH ROW EXECUTE FUNCTION tollgate_analysis_keep_history();

-- 3. One index on the log instead of two: the primary key becomes (analysisId, id), which serves
--    reading one analysis's log in order, and the separate analysisId index goes. Every claim and
--    every completion appends a log row, so this is one index entry fewer per transition.
DROP INDEX "catalog_scoring_attempts_analysisId_idx";
ALTER TABLE "catalog_scoring_attempts" DROP CONSTRAINT "catalog_scoring_attempts_pkey",
  ADD CONSTRAINT "catalog_scoring_attempts_pkey" PRIMARY KEY ("analysisId", "id");

-- 4. The claim becomes a function, for two reasons measured on the claim of 100 with 20,000 queued:
--    - its plan no longer depends on statistics. With none (a fresh table) or stale ones (a rubric
--      release that queues every listing at once, before autovacuum's next ANALYZE) the planner
--      estimated ~10 queued rows and chose a bitmap scan of analyses_claim_order plus a sort of the
--      whole backlog: 6.6 ms of an 8.2 ms claim. `SET enable_sort = off` for the function's own
--      statements leaves the ordered index scan as the only plan without a sort, so a claim reads
--      the first `p_limit` rows in claim order and stops, whatever the statistics say;
--    - PL/pgSQL caches the statement's plan per connection, so a claim is not parsed and planned
--      again on every call.
--    The statement is the one lib/analyses/lease.ts documents: SELECT … FOR UPDATE SKIP LOCKED picks
--    rows no other claimer holds, the UPDATE leases them (found by primary key) with a fresh random
--    token, and the INSERT appends the claim to the attempt log. Rows come back in primary-key
--    order, each with its place in claim order ("claimOrder", 1 = first), for the caller to sort by.
CREATE FUNCTION tollgate_claim_analyses(p_limit int, p_lease_ms float8, p_worker text)
RETURNS TABLE ("id" text, "listingId" text, "submitter" text, "trigger" text, "targetUrl" text, "attempt" int,
               "maxAttempts" int, "leaseToken" text, "leaseExpiresAt" text, "claimOrder" int)
LANGUAGE plpgsql VOLATILE
SET enable_sort = off
AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH picked AS (
    SELECT q."id" FROM "catalog_scoring_analyses" q
    WHERE q."state" = 'queued' AND q."runAfter" <= (now() AT TIME ZONE 'UTC')
    ORDER BY q."priority" DESC, q."runAfter", q."createdAt"
    LIMIT p_limit
    FOR UPDATE SKIP LOCKED
  ), leased AS (
    UPDATE "catalog_scoring_analyses" a SET
      "state" = 'running',
      "leaseToken" = gen_random_uuid()::text,
      "leaseExpiresAt" = (now() AT TIME ZONE 'UTC') + make_interval(secs => p_lease_ms / 1000.0),
      "leasedBy" = p_worker,
      "attempts" = a."attempts" + 1,
      "startedAt" = coalesce(a."startedAt", (now() AT TIME ZONE 'UTC')),
      "updatedAt" = (now() AT TIME ZONE 'UTC')
    WHERE a."id" = ANY (ARRAY(SELECT p."id" FROM picked p))
    RETURNING a."id", a."listingId", a."submitter", a."trigger", a."targetUrl", a."attempts", a."maxAttempts",
              a."leaseToken", a."leaseExpiresAt", array_position(ARRAY(SELECT p."id" FROM picked p), a."id") AS "claimOrder"
  ), logged AS (
    INSERT INTO "catalog_scoring_attempts" ("analysisId", "attempt", "workerId", "leaseToken", "event", "at")
    SELECT l."id", l."attempts", p_worker, l."leaseToken", 'claimed', (now() AT TIME ZONE 'UTC') FROM leased l
  )
  SELECT l."id", l."listingId", l."submitter", l."trigger"::text, l."targetUrl", l."attempts", l."maxAttempts", l."leaseToken",
         to_char(l."leaseExpiresAt", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), l."claimOrder"
  FROM leased l;
END;
$$;
