-- Binding a ledger row to its one transfer on chain (docs/ROUTER.md "Binding"): when the relay
-- received the payment, the settling Transfer's log index, and the reason in words.
ALTER TABLE "router_payments" ADD COLUMN "relayedAt" TIMESTAMP(3);
ALTER TABLE "router_payments" ADD COLUMN "transferLogIndex" INTEGER;
ALTER TABLE "router_payments" ADD COLUMN "detail" TEXT;

-- A (network, transaction, log index) is claimed by at most one row ever.
CREATE UNIQUE INDEX "router_payments_claim_key" ON "router_payments" ("network", "transactionId", "transferLogIndex")
  WHERE "transferLogIndex" IS NOT NULL;
