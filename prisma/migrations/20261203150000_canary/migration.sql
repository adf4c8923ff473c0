-- The canary (lib/canary, docs/CANARY.md): the catalog pays every listed endpoint itself, and a
-- listing's verification status is the outcome of those paid runs, no longer a moderator's toggle.

CREATE TYPE "CanaryTrigger" AS ENUM ('publish', 'schedule', 'moderator');
CREATE TYPE "CanaryRunState" AS ENUM ('queued', 'running', 'done', 'deferred');
CREATE TYPE "CanarySampleState" AS ENUM ('pending', 'completed');
CREATE TYPE "CanarySampleOutcome" AS ENUM ('pass', 'degraded', 'broken');

-- One run per listing and trigger. Leased like an analysis: a worker claims a queued run (leaseToken,
-- leaseExpiresAt); a lease that expires puts it back in the queue, and the retry finds its samples.
CREATE TABLE "canary_runs" (
    "id" TEXT NOT NULL,
    "listingId" TEXT NOT NULL,
    "trigger" "CanaryTrigger" NOT NULL,
    "requestedBy" TEXT NOT NULL,
    "state" "CanaryRunState" NOT NULL DEFAULT 'queued',
    "outcome" "VerificationStatus",
    "reason" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "leaseToken" TEXT,
    "leaseExpiresAt" TIMESTAMP(3),
    "runAfter" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    -- The budget this run reserved (atomic units, at the listed prices), once; null before.
    "reserved" NUMERIC(78, 0),
    "budgetDay" DATE,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),
    CONSTRAINT "canary_runs_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "canary_runs_listingId_fkey" FOREIGN KEY ("listingId") REFERENCES "listings"("id") ON DELETE RESTRICT ON UPDATE CASCADE,
    -- A finished run has its outcome (done) or its reason (deferred); an unfinished one has neither.
    CONSTRAINT "canary_runs_finished" CHECK (
      ("state" IN ('queued', 'running') AND "outcome" IS NULL AND "finishedAt" IS NULL)
      OR ("state" = 'done' AND "outcome" IS NOT NULL AND "finishedAt" IS NOT NULL)
      OR ("state" = 'deferred' AND "outcome" IS NULL AND "reason" IS NOT NULL AND "finishedAt" IS NOT NULL)),
    CONSTRAINT "canary_runs_reserved_amount" CHECK ("reserved" IS NULL OR "reserved" >= 0)
);
CREATE INDEX "canary_runs_listingId_createdAt_idx" ON "canary_runs"("listingId", "createdAt");
-- One active run per listing.
CREATE UNIQUE INDEX "canary_runs_one_active" ON "canary_runs"("listingId") WHERE "state" IN ('queued', 'running');
CREATE INDEX "canary_runs_claim" ON "canary_runs"("runAfter") WHERE "state" = 'queued';

-- A run moves queued → running → done | queued (its lease expired) and queued → deferred | done
-- (refused before any call); done and deferred are final.
CREATE FUNCTION tollgate_canary_run_transition() RETURNS trigger AS $$
BEGIN
  IF NEW."state" = OLD."state" AND OLD."state" IN ('queued', 'running') THEN
    RETURN NEW;
  END IF;
  IF (OLD."state" = 'queued' AND NEW."state" IN ('running', 'deferred', 'done'))
     OR (OLD."state" = 'running' AND NEW."state" IN ('queued', 'done', 'deferred')) THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'canary run % cannot move from % to %', OLD."id", OLD."state", NEW."state"
    USING ERRCODE = 'check_violation';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER "canary_runs_transition" BEFORE UPDATE ON "canary_runs"
  FOR EACH ROW EXECUTE FUNCTION tollgate_canary_run_transition();

-- Runs are history: never deleted.
CREATE FUNCTION tollgate_canary_run_keep() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION 'canary run % is history and cannot be deleted', OLD."id" USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER "canary_runs_keep" BEFORE DELETE ON "canary_runs"
  FOR EACH ROW EXECUTE FUNCTION tollgate_canary_run_keep();

-- One sample per run and endpoint: written `pending` BEFORE the payment is signed (with the quote),
-- given the signed authorization's nonce before it is sent, and completed once with what happened.
-- endpointId has no foreign key: a listing's endpoints are rewritten when its document is saved, and a
-- sample (evidence) outlives that; method and path say which endpoint it was.
CREATE TABLE "canary_samples" (
    "id" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "listingId" TEXT NOT NULL,
    "endpointId" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "state" "CanarySampleState" NOT NULL DEFAULT 'pending',
    -- The listed price the quote was held against, and the quote the payment answers.
    "listedAmount" TEXT,
    "quotedAmount" TEXT,
    "quotedPayTo" TEXT,
    "quotedAsset" TEXT,
    "quotedNetwork" TEXT,
    "payer" TEXT,
    "authorizationNonce" TEXT,
    -- The router's ledger row for the payment, and the chain's facts read from it after confirmation.
    "paymentId" TEXT,
    "paymentStatus" TEXT,
    "transactionId" TEXT,
    "chainAmount" TEXT,
    "chainTo" TEXT,
    "chainNetwork" TEXT,
    "chainAsset" TEXT,
    "blockNumber" BIGINT,
    -- The paid answer.
    "httpStatus" INTEGER,
    "ttlbMs" INTEGER,
    "responseBytes" INTEGER,
    "contentType" TEXT,
    "outputSha256" TEXT,
    "schemaValid" BOOLEAN,
    "schemaErrors" JSONB,
    -- The replay probe: the same payment header sent again (refused | idempotent | charged_twice | skipped).
    "replay" TEXT,
    "replayStatus" INTEGER,
    "outcome" "CanarySampleOutcome",
    "reason" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completedAt" TIMESTAMP(3),
    CONSTRAINT "canary_samples_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "canary_samples_runId_fkey" FOREIGN KEY ("runId") REFERENCES "canary_runs"("id") ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "canary_samples_completed" CHECK (("state" = 'pending' AND "completedAt" IS NULL AND "outcome" IS NULL)
                                             OR ("state" = 'completed' AND "completedAt" IS NOT NULL AND "reason" IS NOT NULL)),
    CONSTRAINT "canary_samples_nonce" CHECK ("authorizationNonce" IS NULL OR "authorizationNonce" ~ '^0x[0-9a-f]{64}$'),
    CONSTRAINT "canary_samples_sha" CHECK ("outputSha256" IS NULL OR "outputSha256" ~ '^[0-9a-f]{64}$')
);
CREATE UNIQUE INDEX "canary_samples_runId_endpointId_key" ON "canary_samples"("runId", "endpointId");
CREATE INDEX "canary_samples_listingId_createdAt_idx" ON "canary_samples"("listingId", "createdAt");

-- Samples are evidence: never deleted; a pending sample may be given its nonce once (before the
-- payment is sent) and completed once; a completed sample never changes again. Identity and quote
-- columns never change.
CREATE FUNCTION tollgate_canary_sample_guard() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION 'canary_samples rows are immutable (DELETE refused)' USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF OLD."state" = 'completed' THEN
    RAISE EXCEPTION 'canary sample % is completed and immutable', OLD."id" USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF NEW."runId" IS DISTINCT FROM OLD."runId" OR NEW."listingId" IS DISTINCT FROM OLD."listingId"
     OR NEW."endpointId" IS DISTINCT FROM OLD."endpointId" OR NEW."method" IS DISTINCT FROM OLD."method" OR NEW."path" IS DISTINCT FROM OLD."path"
     OR NEW."createdAt" IS DISTINCT FROM OLD."createdAt"
     OR (OLD."authorizationNonce" IS NOT NULL AND NEW."authorizationNonce" IS DISTINCT FROM OLD."authorizationNonce")
     OR (OLD."quotedAmount" IS NOT NULL AND (NEW."quotedAmount" IS DISTINCT FROM OLD."quotedAmount" OR NEW."quotedPayTo" IS DISTINCT FROM OLD."quotedPayTo"))
     OR (OLD."payer" IS NOT NULL AND NEW."payer" IS DISTINCT FROM OLD."payer") THEN
    RAISE EXCEPTION 'canary sample %: its identity, quote and signed nonce never change', OLD."id" USING ERRCODE = 'insufficient_privilege';
  END IF;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER "canary_samples_guard" BEFORE UPDATE OR DELETE ON "canary_samples"
  FOR EACH ROW EXECUTE FUNCTION tollgate_canary_sample_guard();

-- The house wallet's spend, per UTC day: scope '*' is the day's total, a listing id that listing's.
-- A run reserves its worst case (the sum of its endpoints' listed prices: the canary never signs
-- above them) with conditional updates of both rows in one transaction (lib/canary/budget.ts), so
-- two workers can never spend past a cap together.
CREATE TABLE "canary_budget" (
    "day" DATE NOT NULL,
    "scope" TEXT NOT NULL,
    "spent" NUMERIC(78, 0) NOT NULL DEFAULT 0,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "canary_budget_pkey" PRIMARY KEY ("day", "scope"),
    CONSTRAINT "canary_budget_spent" CHECK ("spent" >= 0)
);

-- A moderator may suspend a listing's canary (audited): no run is queued for it while suspended.
ALTER TABLE "listings" ADD COLUMN "canarySuspendedAt" TIMESTAMP(3);

-- The status now means "verified by the canary": no run has said so yet.
UPDATE "listings" SET "verificationStatus" = 'unverified' WHERE "verificationStatus" <> 'unverified';
