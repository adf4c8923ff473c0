-- Indexes for the analysis queue's two hot statements (lib/analyses/lease.ts). No columns change,
-- so schema.prisma needs no edit; like the partial unique index in 20261202120100_constraints,
-- Prisma's schema language cannot express partial indexes.

-- The claim: WHERE state = 'queued' AND runAfter <= now ORDER BY priority DESC, runAfter, createdAt
-- LIMIT n FOR UPDATE SKIP LOCKED. Without an index in that order every claim sorts the whole
-- backlog (measured: 16 ms per 100-job claim with 5,000 queued; see docs/QUEUE.md).
CREATE INDEX "analyses_claim_order" ON "catalog_scoring_analyses" ("priority" DESC, "runAfter", "createdAt")
  WHERE "state" = 'queued';

-- The reaper, which runs on every claim: running rows by lease expiry.
CREATE INDEX "analyses_running_lease" ON "catalog_scoring_analyses" ("leaseExpiresAt")
  WHERE "state" = 'running';
