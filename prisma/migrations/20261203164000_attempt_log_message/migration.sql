-- The attempt log's append-only trigger reused the results' function, so an UPDATE or DELETE of
-- "catalog_scoring_attempts" was refused with "catalog_scoring_results rows are immutable" — the
-- wrong table (issue #20 item 6). Its own function names its own table; the rule is unchanged.
CREATE FUNCTION tollgate_attempts_append_only() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION 'catalog_scoring_attempts is an append-only log (% refused)', TG_OP
    USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;

DROP TRIGGER "attempts_append_only" ON "catalog_scoring_attempts";
CREATE TRIGGER "attempts_append_only" BEFORE UPDATE OR DELETE ON "catalog_scoring_attempts"
  FOR EACH ROW EXECUTE FUNCTION tollgate_attempts_append_only();
