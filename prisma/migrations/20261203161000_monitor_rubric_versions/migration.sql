-- docs/spec/scoring-system.md "Governance": "the monitor must support a version before the API serves it".
-- Every catalog-monitor declares, when it claims leases, the rubric versions whose evidence its probe
-- gathers. The API hands an analysis only to a monitor that supports the rubric it serves (otherwise the
-- analysis waits in the queue), and stores a result only when the lease's holder declared that version.
CREATE TABLE "monitor_capabilities" (
    "workerId" TEXT NOT NULL,
    "rubricVersions" TEXT[] NOT NULL,
    "seenAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "monitor_capabilities_pkey" PRIMARY KEY ("workerId")
);
