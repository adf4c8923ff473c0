-- Verification follows the listing (docs/CANARY.md "A change resets verification"): a change of base
-- URL, endpoints, payTo, asset or a raised price makes a verified listing unverified at once, with the
-- reason, and puts a canary run at the front of the queue.

ALTER TYPE "CanaryTrigger" ADD VALUE IF NOT EXISTS 'listing_change';

-- The latest reset: when and why (shown to the seller and the moderators).
ALTER TABLE "listings" ADD COLUMN "verificationResetAt" TIMESTAMP(3), ADD COLUMN "verificationResetReason" TEXT;
-- Why a run was queued (a listing change names what changed); history, as the runs are.
ALTER TABLE "canary_runs" ADD COLUMN "requestReason" TEXT;

-- The front of the queue: runs are claimed by "runAfter" (then "createdAt"); a change's run is due at
-- this instant, before every regular run, first come first served among changes.
CREATE FUNCTION tollgate_canary_front() RETURNS timestamp(3) AS $$ SELECT timestamp '1970-01-01 00:00:00' $$ LANGUAGE sql IMMUTABLE;

-- Queue (or move to the front) a run for a listing because it changed. A listing neither published nor
-- unlisted, or whose canary is suspended, gets none (the canary would not run it). A running run is
-- left alone: its finish sees the reset and queues this run then (lib/canary/run.ts finishRun).
-- Answers the queued run's id, or null.
CREATE FUNCTION tollgate_canary_queue_front(p_listing text, p_reason text) RETURNS text AS $$
DECLARE
  l record;
  run_id text;
BEGIN
  SELECT "publicationState", "canarySuspendedAt" INTO l FROM "listings" WHERE "id" = p_listing;
  IF NOT FOUND OR l."publicationState" NOT IN ('published', 'unlisted') OR l."canarySuspendedAt" IS NOT NULL THEN
    RETURN NULL;
  END IF;
  UPDATE "canary_runs" SET "runAfter" = tollgate_canary_front(), "trigger" = 'listing_change', "requestReason" = left(p_reason, 2000)
   WHERE "listingId" = p_listing AND "state" = 'queued' RETURNING "id" INTO run_id;
  IF run_id IS NOT NULL THEN RETURN run_id; END IF;
  IF EXISTS (SELECT 1 FROM "canary_runs" WHERE "listingId" = p_listing AND "state" = 'running') THEN RETURN NULL; END IF;
  INSERT INTO "canary_runs" ("id", "listingId", "trigger", "requestedBy", "runAfter", "requestReason")
  VALUES ('cr' || md5(random()::text || clock_timestamp()::text || p_listing), p_listing, 'listing_change', 'system:listing-change',
          tollgate_canary_front(), left(p_reason, 2000))
  ON CONFLICT ("listingId") WHERE "state" IN ('queued', 'running') DO NOTHING
  RETURNING "id" INTO run_id;
  RETURN run_id;
END;
$$ LANGUAGE plpgsql;

-- The one reset: a verified listing becomes unverified (a degraded one stays degraded: a change never
-- earns back what a run took away), the reason and instant are kept, and a front run is queued.
CREATE FUNCTION tollgate_reset_verification(p_listing text, p_reason text) RETURNS text AS $$
BEGIN
  UPDATE "listings"
     SET "verificationStatus" = CASE WHEN "verificationStatus" = 'verified' THEN 'unverified'::"VerificationStatus" ELSE "verificationStatus" END,
         "verificationResetAt" = (now() AT TIME ZONE 'UTC'),
         "verificationResetReason" = left(p_reason, 2000)
   WHERE "id" = p_listing;
  IF NOT FOUND THEN RETURN NULL; END IF;
  RETURN tollgate_canary_queue_front(p_listing, p_reason);
END;
$$ LANGUAGE plpgsql;

-- payTo is not in the listing document: the seller's 402 names it. A buyer's payment quoted to a
-- payTo that the run which verified the listing never saw resets it (house rows are the canary's own).
-- Only rows that prove the seller quoted it count: settled (the chain moved the money there, bound to
-- the quote) or failed not_settled (the router matched it to the seller's own challenge); a stranger's
-- rejected or unmeasured row names whatever payTo it likes and resets nothing.
CREATE FUNCTION tollgate_payto_follows() RETURNS trigger AS $$
DECLARE
  known text[];
  ep text;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM "listings" WHERE "id" = NEW."listingId" AND "verificationStatus" = 'verified') THEN
    RETURN NULL;
  END IF;
  SELECT array_agg(DISTINCT lower(s."quotedPayTo") ORDER BY lower(s."quotedPayTo")) INTO known
    FROM "canary_samples" s
   WHERE s."runId" = (SELECT r."id" FROM "canary_runs" r
                       WHERE r."listingId" = NEW."listingId" AND r."state" = 'done'
                       ORDER BY r."finishedAt" DESC LIMIT 1)
     AND s."quotedPayTo" IS NOT NULL;
  IF known IS NULL OR lower(NEW."quotedPayTo") = ANY (known) THEN
    RETURN NULL;
  END IF;
  SELECT e."method" || ' ' || e."path" INTO ep FROM "endpoints" e WHERE e."id" = NEW."endpointId";
  PERFORM tollgate_reset_verification(NEW."listingId",
    format('payTo changed%s from %s to %s (quoted to a buyer)', COALESCE(' on ' || ep, ''), array_to_string(known, ', '), lower(NEW."quotedPayTo")));
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER "router_payments_payto_follows" AFTER INSERT ON "router_payments"
  FOR EACH ROW WHEN (NOT NEW."house" AND NEW."quotedPayTo" IS NOT NULL
                     AND (NEW."status" = 'settled' OR (NEW."status" = 'failed' AND NEW."reason" = 'not_settled')))
  EXECUTE FUNCTION tollgate_payto_follows();
CREATE TRIGGER "router_payments_payto_follows_settled" AFTER UPDATE OF "status" ON "router_payments"
  FOR EACH ROW WHEN (NOT NEW."house" AND NEW."quotedPayTo" IS NOT NULL AND NEW."status" = 'settled' AND OLD."status" <> 'settled')
  EXECUTE FUNCTION tollgate_payto_follows();

-- Claimed in order of "runAfter", then "createdAt".
DROP INDEX "canary_runs_claim";
CREATE INDEX "canary_runs_claim" ON "canary_runs"("runAfter", "createdAt") WHERE "state" = 'queued';

-- Wash (docs/RANK.md "Wash"): the rank sweep's latest wash check per listing. `excluded` lists the
-- payers not counted as distinct ([{payer, reason, from?, transaction?}]); `measuredAt` is when the
-- chain was last read for it (the inputs it was read for hash to `inputKey`); `unmeasured` says why
-- the latest check could not read the chain (the last measured exclusions then stand); `checkedAt`
-- when the check last ran.
CREATE TABLE "listing_wash" (
    "listingId" TEXT NOT NULL,
    "inputKey" TEXT NOT NULL,
    "measuredAt" TIMESTAMP(3),
    "excluded" JSONB NOT NULL DEFAULT '[]',
    "unmeasured" TEXT,
    -- The ledger facts the check was made at (distinct payers, last settlement, oldest payment in the
    -- window): a listing whose fingerprint has not moved keeps its check until it is due again.
    "fingerprint" TEXT,
    "checkedAt" TIMESTAMP(3) NOT NULL,
    CONSTRAINT "listing_wash_pkey" PRIMARY KEY ("listingId"),
    CONSTRAINT "listing_wash_listingId_fkey" FOREIGN KEY ("listingId") REFERENCES "listings"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "listing_wash_excluded_array" CHECK (jsonb_typeof("excluded") = 'array')
);
