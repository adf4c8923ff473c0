-- The form door's draft answers (lib/queue/draft-calls.ts, docs/QUEUE.md "One call per endpoint"):
-- each unpaid call the draft made, kept for the publish analysis of the organisation's listing that
-- follows, which takes (deletes) the calls its endpoints would make, so each endpoint is called once
-- per submission. Rows older than the window are swept at the next write.
CREATE TABLE "intake_draft_calls" (
    "id" BIGSERIAL NOT NULL,
    "organizationId" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "call" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "intake_draft_calls_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "intake_draft_calls_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "intake_draft_calls_org_key_idx" ON "intake_draft_calls"("organizationId", "key");
CREATE INDEX "intake_draft_calls_created_idx" ON "intake_draft_calls"("createdAt");
