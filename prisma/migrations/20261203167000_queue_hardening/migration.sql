-- What pg-boss and graphile-worker have and the queue lacked (issue #20 item 8; docs/QUEUE.md):
-- a dead-letter state, a hard job timeout heartbeats cannot extend, fair claims across sellers, and
-- retention that moves finished analyses and their attempt logs to an append-only archive.

-- 1. Dead letter. An analysis that used up its attempts ends `dead` (a non-retryable failure, such as
--    a refused target, still ends `failed`). `dead` is the one terminal state that can move: a
--    moderator's requeue takes it back to `queued` (lib/queue/dead-letter.ts).
--    ALTER TYPE … ADD VALUE runs inside this migration's transaction, where the new label cannot be
--    used as an enum constant yet; the trigger below therefore compares the states as text.
ALTER TYPE "AnalysisState" ADD VALUE 'dead';

CREATE OR REPLACE FUNCTION tollgate_analysis_transition() RETURNS trigger AS $$
BEGIN
  IF NEW."state"::text = OLD."state"::text THEN
    RETURN NEW;
  END IF;
  IF (OLD."state"::text = 'deferred' AND NEW."state"::text IN ('queued', 'failed'))
     OR (OLD."state"::text = 'queued' AND NEW."state"::text IN ('running', 'deferred', 'failed'))
     OR (OLD."state"::text = 'running' AND NEW."state"::text IN ('queued', 'succeeded', 'failed', 'dead'))
     OR (OLD."state"::text = 'dead' AND NEW."state"::text = 'queued') THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'analysis % cannot move from % to %', OLD."id", OLD."state", NEW."state"
    USING ERRCODE = 'check_violation';
END;
$$ LANGUAGE plpgsql;

DROP TRIGGER "analyses_state_transition" ON "catalog_scoring_analyses";
CREATE TRIGGER "analyses_state_transition" BEFORE UPDATE OF "state" ON "catalog_scoring_analyses"
  FOR EACH ROW
  WHEN (OLD."state"::text IS DISTINCT FROM NEW."state"::text AND NOT (
       (OLD."state"::text = 'deferred' AND NEW."state"::text IN ('queued', 'failed'))
    OR (OLD."state"::text = 'queued' AND NEW."state"::text IN ('running', 'deferred', 'failed'))
    OR (OLD."state"::text = 'running' AND NEW."state"::text IN ('queued', 'succeeded', 'failed', 'dead'))
    OR (OLD."state"::text = 'dead' AND NEW."state"::text = 'queued')))
  EXECUTE FUNCTION tollgate_analysis_transition();

-- 2. Hard timeout. The claim stamps "deadlineAt" = claim time + the job timeout; the claim and every
--    heartbeat set the lease to least(now + lease, deadlineAt), so no heartbeat can carry a lease past
--    it, and the fences (leaseExpiresAt > now) refuse a finish after it. The reaper then treats the
--    attempt as timed out (retry with backoff, or dead).
ALTER TABLE "catalog_scoring_analyses" ADD COLUMN "deadlineAt" TIMESTAMP(3);

-- 3. Fairness. "fairKey" is the seller organisation the analysis is for (the listing's; without a
--    listing, the person who asked, else the submitter). "fairTag" is its place in that seller's line
--    at its priority: one past the seller's last queued tag, but never below the lowest queued tag
--    at that priority (start-time fair queuing: a seller arriving late starts level with the heads of
--    the others' lines, not behind their whole backlog). The claim orders by priority, then fairTag,
--    so it takes the head of every seller's line before anyone's second job.
ALTER TABLE "catalog_scoring_analyses" ADD COLUMN "fairKey" TEXT;
ALTER TABLE "catalog_scoring_analyses" ADD COLUMN "fairTag" INTEGER NOT NULL DEFAULT 0;

DROP INDEX "analyses_claim_order";
CREATE INDEX "analyses_claim_order" ON "catalog_scoring_analyses" ("priority" DESC, "fairTag", "runAfter", "createdAt")
  WHERE "state" = 'queued';
-- A seller's last queued tag at a priority (written when a row becomes queued, never by a claim or a finish).
CREATE INDEX "analyses_fair_line" ON "catalog_scoring_analyses" ("fairKey", "priority", "fairTag" DESC)
  WHERE "state" = 'queued';

CREATE FUNCTION tollgate_analysis_fair_tag(p_key text, p_priority int) RETURNS int
LANGUAGE sql VOLATILE AS $$
  SELECT greatest(
    coalesce((SELECT q."fairTag" + 1 FROM "catalog_scoring_analyses" q
              WHERE q."state" = 'queued' AND q."fairKey" = p_key AND q."priority" = p_priority
              ORDER BY q."fairTag" DESC LIMIT 1), 0),
    coalesce((SELECT q."fairTag" FROM "catalog_scoring_analyses" q
              WHERE q."state" = 'queued' AND q."priority" = p_priority
              ORDER BY q."priority" DESC, q."fairTag" LIMIT 1), 0));
$$;

CREATE FUNCTION tollgate_analysis_fair_insert() RETURNS trigger AS $$
BEGIN
  IF NEW."fairKey" IS NULL THEN
    NEW."fairKey" := coalesce((SELECT l."organizationId" FROM "listings" l WHERE l."id" = NEW."listingId"),
      (SELECT u."organizationId" FROM "users" u WHERE u."id" = NEW."requestedBy"), NEW."requestedBy", NEW."submitter");
  END IF;
  NEW."fairTag" := tollgate_analysis_fair_tag(NEW."fairKey", NEW."priority");
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER "analyses_fair_tag" BEFORE INSERT ON "catalog_scoring_analyses"
  FOR EACH ROW EXECUTE FUNCTION tollgate_analysis_fair_insert();

-- The claim (20261202152000_queue_lean) with two changes: the order gains "fairTag" after priority,
-- and the lease is capped by the attempt's hard deadline (p_timeout_ms from the claim).
DROP FUNCTION tollgate_claim_analyses(int, float8, text);
CREATE FUNCTION tollgate_claim_analyses(p_limit int, p_lease_ms float8, p_worker text, p_timeout_ms float8)
RETURNS TABLE ("id" text, "listingId" text, "submitter" text, "trigger" text, "targetUrl" text, "attempt" int,
               "maxAttempts" int, "leaseToken" text, "leaseExpiresAt" text, "deadlineAt" text, "claimOrder" int)
LANGUAGE plpgsql VOLATILE
SET enable_sort = off
AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH picked AS (
    SELECT q."id" FROM "catalog_scoring_analyses" q
    WHERE q."state" = 'queued' AND q."runAfter" <= (now() AT TIME ZONE 'UTC')
    ORDER BY q."priority" DESC, q."fairTag", q."runAfter", q."createdAt"
    LIMIT p_limit
    FOR UPDATE SKIP LOCKED
  ), leased AS (
    UPDATE "catalog_scoring_analyses" a SET
      "state" = 'running',
      "leaseToken" = gen_random_uuid()::text,
      "deadlineAt" = (now() AT TIME ZONE 'UTC') + make_interval(secs => p_timeout_ms / 1000.0),
      "leaseExpiresAt" = (now() AT TIME ZONE 'UTC') + make_interval(secs => least(p_lease_ms, p_timeout_ms) / 1000.0),
      "leasedBy" = p_worker,
      "attempts" = a."attempts" + 1,
      "startedAt" = coalesce(a."startedAt", (now() AT TIME ZONE 'UTC')),
      "updatedAt" = (now() AT TIME ZONE 'UTC')
    WHERE a."id" = ANY (ARRAY(SELECT p."id" FROM picked p))
    RETURNING a."id", a."listingId", a."submitter", a."trigger", a."targetUrl", a."attempts", a."maxAttempts",
              a."leaseToken", a."leaseExpiresAt", a."deadlineAt", array_position(ARRAY(SELECT p."id" FROM picked p), a."id") AS "claimOrder"
  ), logged AS (
    INSERT INTO "catalog_scoring_attempts" ("analysisId", "attempt", "workerId", "leaseToken", "event", "at")
    SELECT l."id", l."attempts", p_worker, l."leaseToken", 'claimed', (now() AT TIME ZONE 'UTC') FROM leased l
  )
  SELECT l."id", l."listingId", l."submitter", l."trigger"::text, l."targetUrl", l."attempts", l."maxAttempts", l."leaseToken",
         to_char(l."leaseExpiresAt", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), to_char(l."deadlineAt", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), l."claimOrder"
  FROM leased l;
END;
$$;

-- 4. Retention. Finished analyses (succeeded or failed; dead ones wait for a moderator) older than
--    the configured age move, with their attempt logs, to two archive tables that hold each row as
--    it was (to_jsonb of the row, so a later column added to the live table needs no archive change).
--    Results are not touched: catalog_scoring_results stays immutable and complete, and an archived
--    analysis keeps its "resultId" in the archive.
CREATE TABLE "catalog_scoring_analyses_archive" (
  "id" TEXT NOT NULL PRIMARY KEY,
  "finishedAt" TIMESTAMP(3),
  "archivedAt" TIMESTAMP(3) NOT NULL DEFAULT (now() AT TIME ZONE 'UTC'),
  "row" JSONB NOT NULL
);
CREATE TABLE "catalog_scoring_attempts_archive" (
  "analysisId" TEXT NOT NULL,
  "id" BIGINT NOT NULL,
  "archivedAt" TIMESTAMP(3) NOT NULL DEFAULT (now() AT TIME ZONE 'UTC'),
  "row" JSONB NOT NULL,
  PRIMARY KEY ("analysisId", "id")
);

-- The archives are append-only, rows and whole tables alike.
CREATE TRIGGER "analyses_archive_append_only" BEFORE UPDATE OR DELETE ON "catalog_scoring_analyses_archive"
  FOR EACH ROW EXECUTE FUNCTION tollgate_results_immutable();
CREATE TRIGGER "attempts_archive_append_only" BEFORE UPDATE OR DELETE ON "catalog_scoring_attempts_archive"
  FOR EACH ROW EXECUTE FUNCTION tollgate_results_immutable();
CREATE FUNCTION tollgate_archive_no_truncate() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION '% is append-only (TRUNCATE refused)', TG_TABLE_NAME USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER "analyses_archive_no_truncate" BEFORE TRUNCATE ON "catalog_scoring_analyses_archive"
  FOR EACH STATEMENT EXECUTE FUNCTION tollgate_archive_no_truncate();
CREATE TRIGGER "attempts_archive_no_truncate" BEFORE TRUNCATE ON "catalog_scoring_attempts_archive"
  FOR EACH STATEMENT EXECUTE FUNCTION tollgate_archive_no_truncate();

-- The attempt log stays append-only except for one move: a log row may be deleted only when the
-- archive already holds exactly that row (same key, same content) and its analysis is finished.
-- So a DELETE never loses a byte of history: what leaves the live table is, by the check, in an
-- append-only table. UPDATE is refused as before.
CREATE FUNCTION tollgate_attempt_archive_move() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'DELETE'
     AND EXISTS (SELECT 1 FROM "catalog_scoring_attempts_archive" x
                 WHERE x."analysisId" = OLD."analysisId" AND x."id" = OLD."id" AND x."row" = to_jsonb(OLD))
     AND EXISTS (SELECT 1 FROM "catalog_scoring_analyses" a
                 WHERE a."id" = OLD."analysisId" AND a."state"::text IN ('succeeded', 'failed')) THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'catalog_scoring_attempts rows are append-only (% refused; only a row already copied to catalog_scoring_attempts_archive may leave)', TG_OP
    USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;

DROP TRIGGER "attempts_append_only" ON "catalog_scoring_attempts";
CREATE TRIGGER "attempts_append_only" BEFORE UPDATE OR DELETE ON "catalog_scoring_attempts"
  FOR EACH ROW EXECUTE FUNCTION tollgate_attempt_archive_move();

-- An analysis with history (a log here or in the archive) may be deleted only once the archive holds
-- it exactly as it is and no live log row names it.
CREATE OR REPLACE FUNCTION tollgate_analysis_keep_history() RETURNS trigger AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM "catalog_scoring_attempts" WHERE "analysisId" = OLD."id") THEN
    RAISE EXCEPTION 'analysis % has an attempt log and cannot be deleted', OLD."id"
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF EXISTS (SELECT 1 FROM "catalog_scoring_attempts_archive" WHERE "analysisId" = OLD."id")
     AND NOT EXISTS (SELECT 1 FROM "catalog_scoring_analyses_archive" x WHERE x."id" = OLD."id" AND x."row" = to_jsonb(OLD)) THEN
    RAISE EXCEPTION 'analysis % has an archived attempt log and may leave only into catalog_scoring_analyses_archive', OLD."id"
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  RETURN OLD;
END;
$$ LANGUAGE plpgsql;

-- No index on "finishedAt": one would take an entry on every finish, in the hot path; the retention
-- tick reads finished rows by a scan once an hour instead (the archive keeps the table small).
