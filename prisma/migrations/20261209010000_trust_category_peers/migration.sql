-- Each category's value peers (docs/TRUST.md "The value metrics on the pages"): the priced endpoints
-- of its public listings with their latest stored grade's rates of the peer rule's checks, written by
-- the attest sweep (lib/attest/peers.ts). A listing page reads its category's one row instead of
-- joining every endpoint of the catalog to its grade on each view.
CREATE TABLE "trust_category_peers" (
  "category" TEXT PRIMARY KEY,
  "peers" JSONB NOT NULL,
  "computedAt" TIMESTAMP(3) NOT NULL
);
