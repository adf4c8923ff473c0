-- The rank sweep aggregates each source in listing-id order as its rows stream past an index that
-- holds every column it needs (lib/ledger/aggregate.ts factsSql): no hash table, no sort, no heap.
--
-- Payments per (listing, payer): distinct attempting and paying buyers come from the payer groups of
-- each listing, so the index is ordered by payer within the listing and carries what each group
-- aggregates. The failures-since-settlement probe keeps router_payments_rank_idx.
CREATE INDEX "router_payments_payer_idx" ON "router_payments" ("listingId", "payer")
  INCLUDE ("status", "createdAt", "settledAmount");

-- Both are exact key prefixes of an index the rank migration added (router_payments_rank_idx,
-- monitor_health_samples_rank_idx), which serve every lookup they served: each only cost its inserts.
DROP INDEX "router_payments_listingId_status_createdAt_idx";
DROP INDEX "monitor_health_samples_listingId_at_idx";

-- Amounts are atomic units as integer strings (lib/ledger/record.ts refuses anything else); the
-- database now holds that too, so the sweep can pass a listing's settled amounts as plain
-- comma-separated digits. A settled payment carries the amount it settled; a failed one none.
ALTER TABLE "router_payments"
  ADD CONSTRAINT "router_payments_amounts_atomic" CHECK (
    "advertisedAmount" ~ '^[0-9]{1,38}$' AND ("settledAmount" IS NULL OR "settledAmount" ~ '^[0-9]{1,38}$')),
  ADD CONSTRAINT "router_payments_settled_amount" CHECK (("status" = 'settled') = ("settledAmount" IS NOT NULL));
ALTER TABLE "price_quotes"
  ADD CONSTRAINT "price_quotes_amount_atomic" CHECK ("amount" ~ '^[0-9]{1,38}$');

-- The rank row's two documents are written whole by every sweep and read back whole (by Prisma, for
-- the admin view); nothing queries inside them. As json they are stored as written, validated but not
-- converted: jsonb's conversion was ~0.5 s of server time per 100,000 listings written.
ALTER TABLE "listing_ranks"
  ALTER COLUMN "components" TYPE JSON USING "components"::json,
  ALTER COLUMN "facts" TYPE JSON USING "facts"::json;

-- Settled amounts now travel as comma-separated digits (string_agg); the array aggregate that
-- gathered them is unused.
DROP AGGREGATE tollgate_array_cat_agg(anycompatiblearray);
