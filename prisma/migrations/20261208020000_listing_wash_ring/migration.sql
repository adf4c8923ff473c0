-- A listing's payment ring (lib/rank/wash.ts): sellers whose payees pay one another's listings.
ALTER TABLE "listing_wash" ADD COLUMN "ring" JSONB;
