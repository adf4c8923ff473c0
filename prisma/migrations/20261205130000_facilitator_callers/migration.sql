-- The facilitator serves Tollgate's own parties (lib/facilitator, docs/CHAIN.md "Who may settle").

-- 1. A key scope for sellers that settle through /api/facilitator/{verify,settle}.
ALTER TABLE "api_keys" DROP CONSTRAINT "api_keys_scopes_known";
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_scopes_known" CHECK (
  cardinality("scopes") > 0 AND "scopes" <@ ARRAY['router:select', 'router:call', 'facilitator:settle']::TEXT[]
);

-- 2. Gas the facilitator's signer spent per caller per UTC day. A settlement reserves a bound before
--    its first send with one conditional update (spent + reserve <= the day's budget), then trues it
--    up to the receipts' gas (lib/facilitator/gas.ts).
CREATE TABLE "facilitator_gas" (
    "day" DATE NOT NULL,
    "caller" TEXT NOT NULL,
    "spent" DECIMAL(78,0) NOT NULL DEFAULT 0,
    "settlements" INTEGER NOT NULL DEFAULT 0,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "facilitator_gas_pkey" PRIMARY KEY ("day", "caller"),
    CONSTRAINT "facilitator_gas_spent_nonnegative" CHECK ("spent" >= 0)
);
