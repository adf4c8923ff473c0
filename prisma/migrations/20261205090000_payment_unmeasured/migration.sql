-- A relayed payment that did not settle and whose cause neither party can be shown to own (the chain
-- unreadable at the time, the seller's requirements unreadable): recorded, and moves no gate
-- (docs/ROUTER.md "Whose failure it is"). Used from the next migration on: a new enum value is usable
-- only once the transaction that adds it has committed.
ALTER TYPE "PaymentStatus" ADD VALUE IF NOT EXISTS 'unmeasured';
