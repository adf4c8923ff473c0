-- Who led each rank sweep, and when (issue #20 item 9, docs/RANK.md "One leader"): the sweep writes a
-- row on its lock connection just after taking the advisory lock and closes it just before letting go,
-- both on the database's clock (clock_timestamp()), so the leaders of several web instances (or
-- machines) can be read back and checked never to overlap. A leader that died mid-sweep leaves its
-- row open (finishedAt null); its lock went with its connection. Rows older than 7 days are deleted
-- by the next sweep's insert.
CREATE TABLE "rank_sweep_runs" (
    "id" BIGSERIAL NOT NULL,
    "holder" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "startedAt" TIMESTAMP(3) NOT NULL DEFAULT clock_timestamp(),
    "finishedAt" TIMESTAMP(3),
    "scanned" INTEGER,
    "updated" INTEGER,
    "error" TEXT,
    CONSTRAINT "rank_sweep_runs_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "rank_sweep_runs_order_check" CHECK ("finishedAt" IS NULL OR "finishedAt" >= "startedAt")
);
CREATE INDEX "rank_sweep_runs_startedAt_idx" ON "rank_sweep_runs" ("startedAt");
