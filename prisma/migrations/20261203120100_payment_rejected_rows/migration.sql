-- Rows recorded before "rejected" existed whose failure was the buyer's: the header did not decode.
UPDATE "router_payments" SET "status" = 'rejected' WHERE "status" = 'failed' AND "reason" = 'malformed_payment';
