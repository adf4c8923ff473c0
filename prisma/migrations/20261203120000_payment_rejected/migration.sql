-- A payment attempt refused for the buyer's own fault (docs/ROUTER.md "Whose failure it is"): a
-- header that does not decode, an authorization that expired, is signed wrongly, names other terms
-- than the requirement it answers, reuses a spent nonce, or is not covered by the payer's balance.
-- It is recorded, and says nothing about the seller: neither settled nor failed, so no settle gate
-- counts it and no buyer counts as having attempted. (Used from the next migration on: a new enum
-- value is usable only once the transaction that adds it has committed.)
ALTER TYPE "PaymentStatus" ADD VALUE IF NOT EXISTS 'rejected';
