-- A listing moved to another server (its base URL's scheme, host or port changed) starts its health
-- history again: samples taken before "monitoredSince" measured the old server and no longer count in
-- the rank's Liveness or readiness's H2 (lib/facts/aggregate.ts). NULL: never moved.
ALTER TABLE "listings" ADD COLUMN "monitoredSince" TIMESTAMP(3);
