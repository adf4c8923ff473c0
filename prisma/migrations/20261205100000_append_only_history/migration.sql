-- Append-only history (docs/DATA-MODEL.md "What the database itself guarantees"): from the app's role a
-- ledger row is confirmed once and never deleted (a correction is a new row naming the old one), a
-- listing with history is deleted as a tombstone that keeps it, health samples and price quotes are
-- insert-only, and a revoked API key stays revoked. lib/immutability.test.ts tries each bypass.

-- 0. Evidence an old demo seeded by hand (flagged demo, or quotes from "demo-seed") predates the demo
--    market; the demo removed it at every start. Once the guards below are on, nothing can, so it goes
--    here, as the owner, before them. Nothing else writes these flags (the router's rows are demo = false).
DELETE FROM "router_payments" WHERE "demo";
DELETE FROM "monitor_health_samples" WHERE "demo";
DELETE FROM "price_quotes" WHERE "source" = 'demo-seed';

-- 1. No cascade from a listing into its history: RESTRICT, and the endpoint a payment or a quote was
--    for is kept as the id it had (a listing's save rewrites its endpoint rows; SET NULL would rewrite
--    the history, as canary_samples and trust_observations already avoid).
ALTER TABLE "probe_evidence" DROP CONSTRAINT "probe_evidence_listingId_fkey";
ALTER TABLE "router_payments" DROP CONSTRAINT "router_payments_listingId_fkey";
ALTER TABLE "router_payments" DROP CONSTRAINT "router_payments_endpointId_fkey";
ALTER TABLE "monitor_health_samples" DROP CONSTRAINT "monitor_health_samples_listingId_fkey";
ALTER TABLE "price_quotes" DROP CONSTRAINT "price_quotes_listingId_fkey";
ALTER TABLE "price_quotes" DROP CONSTRAINT "price_quotes_endpointId_fkey";
ALTER TABLE "probe_evidence" ADD CONSTRAINT "probe_evidence_listingId_fkey" FOREIGN KEY ("listingId") REFERENCES "listings"("id") ON DELETE RESTRICT ON UPDATE RESTRICT;
ALTER TABLE "router_payments" ADD CONSTRAINT "router_payments_listingId_fkey" FOREIGN KEY ("listingId") REFERENCES "listings"("id") ON DELETE RESTRICT ON UPDATE RESTRICT;
ALTER TABLE "monitor_health_samples" ADD CONSTRAINT "monitor_health_samples_listingId_fkey" FOREIGN KEY ("listingId") REFERENCES "listings"("id") ON DELETE RESTRICT ON UPDATE RESTRICT;
ALTER TABLE "price_quotes" ADD CONSTRAINT "price_quotes_listingId_fkey" FOREIGN KEY ("listingId") REFERENCES "listings"("id") ON DELETE RESTRICT ON UPDATE RESTRICT;

-- 2. The listing tombstone: deletedAt, set once, only on an archived listing, which it keeps archived.
ALTER TABLE "listings" ADD COLUMN "deletedAt" TIMESTAMP(3);
ALTER TABLE "listings" ADD CONSTRAINT "listings_deleted_is_archived" CHECK ("deletedAt" IS NULL OR "publicationState" = 'archived');

CREATE FUNCTION tollgate_listing_tombstone() RETURNS trigger AS $$
BEGIN
  IF OLD."deletedAt" IS NOT NULL AND (NEW."deletedAt" IS DISTINCT FROM OLD."deletedAt" OR NEW."publicationState" IS DISTINCT FROM OLD."publicationState") THEN
    RAISE EXCEPTION 'listing % was deleted (a tombstone): it cannot be restored or republished', OLD."id" USING ERRCODE = 'insufficient_privilege';
  END IF;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER "listings_tombstone" BEFORE UPDATE OF "deletedAt", "publicationState" ON "listings"
  FOR EACH ROW EXECUTE FUNCTION tollgate_listing_tombstone();

--    A hard DELETE of a listing with history is refused, naming the first table that holds it (the
--    foreign keys above refuse it too; this also covers the history tables that have no foreign key).
CREATE FUNCTION tollgate_listing_keeps_history() RETURNS trigger AS $$
DECLARE
  t text;
  found boolean;
BEGIN
  FOREACH t IN ARRAY ARRAY['router_payments', 'monitor_health_samples', 'price_quotes', 'probe_evidence', 'catalog_scoring_results',
                           'canary_runs', 'canary_samples', 'trust_observations', 'trust_endpoint_revisions', 'moderation_audit'] LOOP
    EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I WHERE "listingId" = $1)', t) INTO found USING OLD."id";
    IF found THEN
      RAISE EXCEPTION 'listing % keeps history in %: DELETE refused (delete it as a tombstone: deletedAt)', OLD."id", t USING ERRCODE = 'insufficient_privilege';
    END IF;
  END LOOP;
  RETURN OLD;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER "listings_keep_history" BEFORE DELETE ON "listings"
  FOR EACH ROW EXECUTE FUNCTION tollgate_listing_keeps_history();

-- 3. The ledger. A correction names the row it corrects (one each), and is itself confirmed.
ALTER TABLE "router_payments" ADD COLUMN "correctsId" TEXT;
CREATE UNIQUE INDEX "router_payments_correctsId_key" ON "router_payments"("correctsId");
ALTER TABLE "router_payments" ADD CONSTRAINT "router_payments_correctsId_fkey" FOREIGN KEY ("correctsId") REFERENCES "router_payments"("id") ON DELETE RESTRICT ON UPDATE RESTRICT;
ALTER TABLE "router_payments" ADD CONSTRAINT "router_payments_correction_confirmed" CHECK ("correctsId" IS NULL OR ("confirmedAt" IS NOT NULL AND "status" <> 'unconfirmed'));

--    Never deleted. UPDATE only while the row waits for the chain (unconfirmed, confirmedAt null), and
--    then never of the identity columns named here; every other column (the confirmation, and any
--    column added later) may change until confirmedAt is set. After that nothing changes.
CREATE FUNCTION tollgate_router_payment_written_once() RETURNS trigger AS $$
DECLARE
  frozen CONSTANT text[] := ARRAY['id', 'payer', 'listingId', 'endpointId', 'advertisedAmount', 'asset', 'network', 'transactionId',
                                  'createdAt', 'quotedPayTo', 'authorizationNonce', 'protocol', 'house', 'demo', 'httpStatus',
                                  'latencyMs', 'paymentResponse', 'correctsId'];
  o jsonb;
  n jsonb;
  c text;
BEGIN
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION 'router_payments rows are never deleted (DELETE refused; a correction is a new row naming the old one)' USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF OLD."status" <> 'unconfirmed' OR OLD."confirmedAt" IS NOT NULL THEN
    RAISE EXCEPTION 'router_payments row % is confirmed (%): written once, UPDATE refused (a correction is a new row naming it)', OLD."id", OLD."status" USING ERRCODE = 'insufficient_privilege';
  END IF;
  o := to_jsonb(OLD);
  n := to_jsonb(NEW);
  FOREACH c IN ARRAY frozen LOOP
    IF (n -> c) IS DISTINCT FROM (o -> c) THEN
      RAISE EXCEPTION 'router_payments row %: % is part of what was paid and never changes (UPDATE refused)', OLD."id", c USING ERRCODE = 'insufficient_privilege';
    END IF;
  END LOOP;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER "router_payments_written_once" BEFORE UPDATE OR DELETE ON "router_payments"
  FOR EACH ROW EXECUTE FUNCTION tollgate_router_payment_written_once();

--    A correction corrects a row that is no longer waiting, and keeps what was paid: the same listing,
--    endpoint, payer, quote, protocol and time of the attempt (so it cannot move a payment elsewhere).
--    Its authorization nonce stays on the old row (null here: (payer, nonce) names one row).
CREATE FUNCTION tollgate_router_payment_correction() RETURNS trigger AS $$
DECLARE
  same CONSTANT text[] := ARRAY['payer', 'listingId', 'endpointId', 'advertisedAmount', 'asset', 'network', 'createdAt',
                                'quotedPayTo', 'protocol', 'house', 'demo'];
  old_row "router_payments";
  o jsonb;
  n jsonb;
  c text;
BEGIN
  SELECT * INTO old_row FROM "router_payments" WHERE "id" = NEW."correctsId";
  IF NOT FOUND THEN
    RETURN NEW; -- the foreign key names the missing row
  END IF;
  IF old_row."status" = 'unconfirmed' AND old_row."confirmedAt" IS NULL THEN
    RAISE EXCEPTION 'router_payments row % still waits for the chain: it is confirmed, not corrected', old_row."id" USING ERRCODE = 'check_violation';
  END IF;
  IF NEW."authorizationNonce" IS NOT NULL THEN
    RAISE EXCEPTION 'a correction of router_payments row % carries no authorization nonce (the corrected row keeps it)', old_row."id" USING ERRCODE = 'check_violation';
  END IF;
  o := to_jsonb(old_row);
  n := to_jsonb(NEW);
  FOREACH c IN ARRAY same LOOP
    IF (n -> c) IS DISTINCT FROM (o -> c) THEN
      RAISE EXCEPTION 'a correction of router_payments row % keeps its %', old_row."id", c USING ERRCODE = 'check_violation';
    END IF;
  END LOOP;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER "router_payments_correction" BEFORE INSERT ON "router_payments"
  FOR EACH ROW WHEN (NEW."correctsId" IS NOT NULL) EXECUTE FUNCTION tollgate_router_payment_correction();

--    The facts leave a corrected row out by its id, so the two covering indexes they read carry it.
DROP INDEX "router_payments_payer_idx";
CREATE INDEX "router_payments_payer_idx" ON "router_payments" ("listingId", "payer")
  INCLUDE ("status", "createdAt", "settledAmount", "house", "id");
DROP INDEX "router_payments_rank_idx";
CREATE INDEX "router_payments_rank_idx" ON "router_payments" ("listingId", "status", "createdAt")
  INCLUDE ("payer", "settledAmount", "endpointId", "id");

-- 4. Health samples and price quotes are insert-only (tollgate_append_only: migration
--    20261203180000_immutability_guards), and no statement empties them.
CREATE TRIGGER "monitor_health_samples_append_only" BEFORE UPDATE OR DELETE ON "monitor_health_samples"
  FOR EACH ROW EXECUTE FUNCTION tollgate_append_only();
CREATE TRIGGER "price_quotes_append_only" BEFORE UPDATE OR DELETE ON "price_quotes"
  FOR EACH ROW EXECUTE FUNCTION tollgate_append_only();
CREATE TRIGGER "monitor_health_samples_no_truncate" BEFORE TRUNCATE ON "monitor_health_samples"
  FOR EACH STATEMENT EXECUTE FUNCTION tollgate_keep_history_no_truncate();
CREATE TRIGGER "price_quotes_no_truncate" BEFORE TRUNCATE ON "price_quotes"
  FOR EACH STATEMENT EXECUTE FUNCTION tollgate_keep_history_no_truncate();

-- 5. A revoked API key stays revoked: once revokedAt is set only lastUsedAt may move (a request that
--    authenticated just before the revocation records its use); keys are revoked, never deleted
--    (a deleted hash could be inserted again, unrevoked).
CREATE FUNCTION tollgate_api_key_revoked() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION 'api_keys rows are revoked, never deleted (DELETE refused)' USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF OLD."revokedAt" IS NOT NULL AND (to_jsonb(NEW) - 'lastUsedAt') IS DISTINCT FROM (to_jsonb(OLD) - 'lastUsedAt') THEN
    RAISE EXCEPTION 'api key % is revoked: it stays revoked (UPDATE refused)', OLD."id" USING ERRCODE = 'insufficient_privilege';
  END IF;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER "api_keys_stay_revoked" BEFORE UPDATE OR DELETE ON "api_keys"
  FOR EACH ROW EXECUTE FUNCTION tollgate_api_key_revoked();
CREATE TRIGGER "api_keys_no_truncate" BEFORE TRUNCATE ON "api_keys"
  FOR EACH STATEMENT EXECUTE FUNCTION tollgate_keep_history_no_truncate();
