-- Immutability the owner could bypass (issue #20 item 5; docs/DATA-MODEL.md "Who may do what").
-- Row triggers do not fire on TRUNCATE, the evidence a result stands on could be rewritten, and the
-- moderation audit and the badge revocations took UPDATE and DELETE. This migration closes those
-- holes in the tables themselves; the role split (lib/migrate.ts grantAppRole) makes sure the app's
-- connection cannot switch the triggers off.

-- 1. TRUNCATE. One statement-level guard on every table that keeps history: the ones whose rows a
--    trigger refuses to delete, and the settlement ledger. TRUNCATE … CASCADE fires the guard of every
--    table it would empty, so truncating listings with CASCADE is refused as well.
CREATE FUNCTION tollgate_keep_history_no_truncate() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION '% keeps history: TRUNCATE refused', TG_TABLE_NAME USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER "results_no_truncate" BEFORE TRUNCATE ON "catalog_scoring_results"
  FOR EACH STATEMENT EXECUTE FUNCTION tollgate_keep_history_no_truncate();
CREATE TRIGGER "attempts_no_truncate" BEFORE TRUNCATE ON "catalog_scoring_attempts"
  FOR EACH STATEMENT EXECUTE FUNCTION tollgate_keep_history_no_truncate();
CREATE TRIGGER "analyses_no_truncate" BEFORE TRUNCATE ON "catalog_scoring_analyses"
  FOR EACH STATEMENT EXECUTE FUNCTION tollgate_keep_history_no_truncate();
CREATE TRIGGER "probe_evidence_no_truncate" BEFORE TRUNCATE ON "probe_evidence"
  FOR EACH STATEMENT EXECUTE FUNCTION tollgate_keep_history_no_truncate();
CREATE TRIGGER "revocations_no_truncate" BEFORE TRUNCATE ON "catalog_scoring_revocations"
  FOR EACH STATEMENT EXECUTE FUNCTION tollgate_keep_history_no_truncate();
CREATE TRIGGER "moderation_audit_no_truncate" BEFORE TRUNCATE ON "moderation_audit"
  FOR EACH STATEMENT EXECUTE FUNCTION tollgate_keep_history_no_truncate();
CREATE TRIGGER "trust_observations_no_truncate" BEFORE TRUNCATE ON "trust_observations"
  FOR EACH STATEMENT EXECUTE FUNCTION tollgate_keep_history_no_truncate();
CREATE TRIGGER "trust_endpoint_revisions_no_truncate" BEFORE TRUNCATE ON "trust_endpoint_revisions"
  FOR EACH STATEMENT EXECUTE FUNCTION tollgate_keep_history_no_truncate();
CREATE TRIGGER "canary_runs_no_truncate" BEFORE TRUNCATE ON "canary_runs"
  FOR EACH STATEMENT EXECUTE FUNCTION tollgate_keep_history_no_truncate();
CREATE TRIGGER "canary_samples_no_truncate" BEFORE TRUNCATE ON "canary_samples"
  FOR EACH STATEMENT EXECUTE FUNCTION tollgate_keep_history_no_truncate();
CREATE TRIGGER "router_payments_no_truncate" BEFORE TRUNCATE ON "router_payments"
  FOR EACH STATEMENT EXECUTE FUNCTION tollgate_keep_history_no_truncate();
-- (The two queue archives have had theirs since 20261203167000_queue_hardening.)

-- 2. Probe evidence is what a result was scored from: written once with its result, never changed.
CREATE FUNCTION tollgate_probe_evidence_immutable() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION 'probe_evidence rows are immutable (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER "probe_evidence_immutable" BEFORE UPDATE OR DELETE ON "probe_evidence"
  FOR EACH ROW EXECUTE FUNCTION tollgate_probe_evidence_immutable();

--    A result names its evidence by a foreign key (a result without evidence keeps "evidenceId" null).
--    Every writer so far inserted the two together, so no result can name a missing row; should a
--    database hold one anyway, the migration stops here and says which, rather than guessing.
DO $$
DECLARE
  orphans int;
  example text;
BEGIN
  SELECT count(*), min(r."id") INTO orphans, example FROM "catalog_scoring_results" r
  WHERE r."evidenceId" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "probe_evidence" e WHERE e."id" = r."evidenceId");
  IF orphans > 0 THEN
    RAISE EXCEPTION '% catalog_scoring_results row(s) name a probe_evidence row that does not exist (for example result %); results are immutable, so restore the evidence rows before migrating', orphans, example;
  END IF;
END;
$$;
ALTER TABLE "catalog_scoring_results" ADD CONSTRAINT "catalog_scoring_results_evidenceId_fkey"
  FOREIGN KEY ("evidenceId") REFERENCES "probe_evidence"("id") ON DELETE RESTRICT ON UPDATE RESTRICT;

-- 3. The moderation audit and the badge revocations are append-only.
CREATE FUNCTION tollgate_append_only() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION '% is append-only (% refused)', TG_TABLE_NAME, TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER "moderation_audit_append_only" BEFORE UPDATE OR DELETE ON "moderation_audit"
  FOR EACH ROW EXECUTE FUNCTION tollgate_append_only();
CREATE TRIGGER "revocations_append_only" BEFORE UPDATE OR DELETE ON "catalog_scoring_revocations"
  FOR EACH ROW EXECUTE FUNCTION tollgate_append_only();
