-- Bazaar receipts (docs/PROBE.md "Receipts"): what the facilitator answered for each verify and settle
-- that carried a bazaar extension, what indexing the settled resource found (named checks, readiness
-- rules) and what URL registration found. Evidence, so insert-only: a later outcome is a new row.
CREATE TABLE "bazaar_receipts" (
  "id"             TEXT PRIMARY KEY,
  "kind"           TEXT NOT NULL CHECK ("kind" IN ('verify', 'settle', 'index', 'register', 'sync')),
  "status"         TEXT NOT NULL CHECK ("status" IN ('success', 'processing', 'rejected')),
  "rejectedCode"   TEXT,
  "rejectedReason" TEXT,
  "caller"         TEXT,
  "organizationId" TEXT,
  "listingId"      TEXT,
  "resourceUrl"    TEXT,
  "method"         TEXT,
  "transaction"    TEXT,
  "network"        TEXT,
  "payer"          TEXT,
  "payTo"          TEXT,
  "asset"          TEXT,
  "amount"         TEXT,
  "settlementId"   TEXT,
  "checks"         JSONB NOT NULL DEFAULT '[]',
  "readiness"      JSONB,
  "settledAt"      TIMESTAMP(3),
  "listedAt"       TIMESTAMP(3),
  "createdAt"      TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "bazaar_receipts_rejected_has_reason" CHECK (("status" = 'rejected') = ("rejectedCode" IS NOT NULL AND "rejectedReason" IS NOT NULL))
);
-- One settlement receipt per transaction: a replayed settlement cannot be receipted twice.
CREATE UNIQUE INDEX "bazaar_receipts_settle_tx_key" ON "bazaar_receipts" ("transaction") WHERE "kind" = 'settle' AND "transaction" IS NOT NULL;
CREATE UNIQUE INDEX "bazaar_receipts_index_of_settlement_key" ON "bazaar_receipts" ("settlementId") WHERE "kind" = 'index';
CREATE INDEX "bazaar_receipts_listing_idx" ON "bazaar_receipts" ("listingId", "createdAt");
CREATE INDEX "bazaar_receipts_org_idx" ON "bazaar_receipts" ("organizationId", "createdAt");
CREATE INDEX "bazaar_receipts_resource_idx" ON "bazaar_receipts" ("resourceUrl", "createdAt");

CREATE TRIGGER "bazaar_receipts_append_only" BEFORE UPDATE OR DELETE ON "bazaar_receipts"
  FOR EACH ROW EXECUTE FUNCTION tollgate_append_only();
CREATE TRIGGER "bazaar_receipts_no_truncate" BEFORE TRUNCATE ON "bazaar_receipts"
  FOR EACH STATEMENT EXECUTE FUNCTION tollgate_keep_history_no_truncate();
