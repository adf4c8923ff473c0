-- The relay carries x402 payments (PAYMENT-SIGNATURE, or v1's X-PAYMENT) and MPP credentials
-- (Authorization: Payment …); each row says which (lib/router/relay-call.ts, docs/ROUTER.md). Null on
-- rows not written by the relay (seeded history, the older writers).
ALTER TABLE "router_payments"
  ADD COLUMN "protocol" TEXT,
  ADD CONSTRAINT "router_payments_protocol_known" CHECK ("protocol" IS NULL OR "protocol" IN ('x402', 'mpp'));
