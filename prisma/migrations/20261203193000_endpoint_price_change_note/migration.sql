-- A seller's note on a change of an endpoint's listed price (docs/TRUST.md "Revisions", H2). Written
-- by the listing save (lib/listings/save.ts) only on the endpoint rows whose listed price that save
-- changed, carried over to the rewritten row while the price stays, cleared by a later unnoted price
-- change; the trust revision writer copies it into the price revision's "note".
ALTER TABLE "endpoints" ADD COLUMN "priceChangeNote" TEXT;
ALTER TABLE "endpoints" ADD COLUMN "priceChangeNoteAt" TIMESTAMP(3);
ALTER TABLE "endpoints" ADD CONSTRAINT "endpoints_price_change_note" CHECK (
  ("priceChangeNote" IS NULL AND "priceChangeNoteAt" IS NULL)
  OR ("priceChangeNote" IS NOT NULL AND "priceChangeNoteAt" IS NOT NULL AND char_length("priceChangeNote") BETWEEN 1 AND 500)
);
