-- Rate limits and caps (lib/limits, docs/LIMITS.md).

-- 1. Fixed-window counters: one row per (bucket, window start), bucket = "<action>:<actor>". A token
--    is one upsert that adds one only while "count" is under the limit (lib/limits/rate-limit.ts).
--    Rows whose window has ended are swept by the limits tick (lib/limits/ticks.ts).
CREATE TABLE "rate_limit_windows" (
    "bucket" TEXT NOT NULL,
    "windowStart" TIMESTAMP(3) NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "rate_limit_windows_pkey" PRIMARY KEY ("bucket", "windowStart"),
    CONSTRAINT "rate_limit_windows_count_positive" CHECK ("count" >= 1),
    CONSTRAINT "rate_limit_windows_window_forward" CHECK ("expiresAt" > "windowStart")
);
CREATE INDEX "rate_limit_windows_expiresAt_idx" ON "rate_limit_windows"("expiresAt");

-- 2. Who asked for an analysis, when a person did (an owner's submit, re-analysis or publish): the
--    active-analyses cap counts these per seller organisation (lib/limits/caps.ts). Sweeps and the
--    demo seed leave it null. The partial index holds only a person's active rows, so the queue's
--    bulk work (sweeps, re-scores) never touches it.
ALTER TABLE "catalog_scoring_analyses" ADD COLUMN "requestedBy" TEXT;
CREATE INDEX "analyses_active_requested_by" ON "catalog_scoring_analyses" ("requestedBy")
  WHERE "requestedBy" IS NOT NULL AND "state" IN ('deferred', 'queued', 'running');

-- 3. Sign-in nonces expire (10 minutes) and the limits tick deletes expired and spent ones.
CREATE INDEX "auth_nonces_expiresAt_idx" ON "auth_nonces"("expiresAt");
