-- The router relays payments (lib/router/relay-call.ts) and records each attempt here; a row is
-- settled only once the chain confirms it (lib/ledger/confirm-payment.ts). docs/ROUTER.md.

-- A row whose chain facts could not be read yet (the node was down). It counts as neither settled
-- nor failed until a tick confirms it. (Not used in this file: a new enum value is usable only once
-- the transaction that adds it has committed.)
ALTER TYPE "PaymentStatus" ADD VALUE IF NOT EXISTS 'unconfirmed';

ALTER TABLE "router_payments"
  -- What the relay saw: the payTo of the requirement the payment answered, the seller's HTTP status,
  -- the time the seller took, the seller's decoded PAYMENT-RESPONSE, and why a row failed (or is
  -- not yet confirmed): unproven, malformed_payment, not_settled, ...
  ADD COLUMN "quotedPayTo" TEXT,
  ADD COLUMN "httpStatus" INTEGER,
  ADD COLUMN "latencyMs" INTEGER,
  ADD COLUMN "paymentResponse" JSONB,
  ADD COLUMN "reason" TEXT,
  -- What the chain says about the transaction (never what the seller says): its block, the USDC
  -- Transfer's from and to, and the amount it moved in atomic units.
  ADD COLUMN "blockNumber" BIGINT,
  ADD COLUMN "chainFrom" TEXT,
  ADD COLUMN "chainTo" TEXT,
  ADD COLUMN "chainAmount" TEXT,
  ADD COLUMN "confirmedAt" TIMESTAMP(3),
  -- The catalog's own wallets (the canary): never traction or price evidence.
  ADD COLUMN "house" BOOLEAN NOT NULL DEFAULT false,
  -- The EIP-3009 authorization's nonce (0x + 64 hex); with the payer it names one authorization.
  ADD COLUMN "authorizationNonce" TEXT,
  ADD CONSTRAINT "router_payments_chain_amount_atomic" CHECK ("chainAmount" IS NULL OR "chainAmount" ~ '^[0-9]{1,38}$');

-- A replayed authorization is recorded once.
CREATE UNIQUE INDEX "router_payments_payer_nonce_key" ON "router_payments" ("payer", "authorizationNonce");

-- The confirm tick's queue: rows naming a transaction the chain has not yet been read for.
CREATE INDEX "router_payments_unconfirmed_idx" ON "router_payments" ("createdAt") WHERE "transactionId" IS NOT NULL AND "confirmedAt" IS NULL;

-- The rank's payments pass (lib/facts/aggregate.ts) now leaves house rows out of traction and price
-- evidence: the index carries "house" so that pass stays index-only.
DROP INDEX "router_payments_payer_idx";
CREATE INDEX "router_payments_payer_idx" ON "router_payments" ("listingId", "payer")
  INCLUDE ("status", "createdAt", "settledAmount", "house");
