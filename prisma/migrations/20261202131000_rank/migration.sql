-- Rank (issue 6): SQL helpers and indexes for the ledger aggregates, browse order and search.
-- Functions and indexes only; no table changes. See lib/ledger/aggregate.ts and lib/catalog/browse.ts.

-- Atomic units (an integer string, as router_payments and price_quotes store them) to whole units of
-- the asset, e.g. "9600" with 6 decimals (USDC) -> 0.0096. NULL for anything that is not a plain
-- non-negative integer, so one malformed row can never fail a whole sweep batch.
CREATE FUNCTION tollgate_atomic_to_units(amount text, decimals integer) RETURNS double precision AS $$
  SELECT CASE
    WHEN amount ~ '^[0-9]{1,38}$' AND decimals BETWEEN 0 AND 36
      THEN (amount::numeric / power(10::numeric, decimals))::double precision
  END;
$$ LANGUAGE sql IMMUTABLE PARALLEL SAFE;

-- A decimal string such as endpoints."priceUsd" ("0.01") to a number; NULL when it is not one.
CREATE FUNCTION tollgate_decimal_or_null(value text) RETURNS numeric AS $$
  SELECT CASE WHEN value ~ '^[0-9]{1,20}(\.[0-9]{1,20})?$' THEN value::numeric END;
$$ LANGUAGE sql IMMUTABLE PARALLEL SAFE;

-- The rank sweep reads, per listing, the 30-day window of each status, the last settlement and the
-- failures since it: one (listing, status, time) range each. Carrying payer, amount and endpoint in
-- the index lets all three skip the heap.
CREATE INDEX "router_payments_rank_idx" ON "router_payments" ("listingId", "status", "createdAt")
  INCLUDE ("payer", "settledAmount", "endpointId");

-- Uptime windows and the latest sample per listing, likewise without the heap.
CREATE INDEX "monitor_health_samples_rank_idx" ON "monitor_health_samples" ("listingId", "at")
  INCLUDE ("outcome", "confidence");

-- Browse order (docs/RANK.md): tier ASC, sortWeight DESC, rankScore DESC NULLS LAST, then the seeded
-- shuffle. The keyset predicate compares negated columns as one row, so the index holds exactly
-- those expressions: the prefix of the page's position becomes an index range, and only ties on it
-- are sorted by the shuffle key.
CREATE INDEX "listings_browse_idx" ON "listings" ("tier", (-"sortWeight"), (-COALESCE("rankScore", -1)))
  WHERE "publicationState" = 'published';
