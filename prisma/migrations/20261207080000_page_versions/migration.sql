-- Public pages are served from each web process's cache (lib/catalog/page-cache.ts) and checked
-- against these versions, one statement per request (docs/SURFACES.md "Cached public pages"). The
-- writers are in other processes (sweeps, workers, other web instances), so the version is written by
-- triggers in the writing transaction itself, whatever code path writes:
--
-- 1. A row trigger marks the tags a write touches in a transaction-local setting
--    (`tollgate.page_tags`, ",tag,tag,"): `listing:<id>` for the listing's own pages and `catalog`
--    for browse, search and the category pages.
-- 2. A deferred constraint trigger, at commit, moves every marked tag to a fresh number from one
--    sequence, in one statement and in tag order. Locks on the version rows are taken only there,
--    briefly and always in the same order, so two writers never deadlock over them, and a reader sees
--    the new number exactly when the write is visible. A rolled-back write changes nothing.
CREATE TABLE "page_versions" (
    "tag" TEXT NOT NULL,
    "version" BIGINT NOT NULL,
    CONSTRAINT "page_versions_pkey" PRIMARY KEY ("tag")
);
CREATE SEQUENCE "page_version_seq";

-- A version only moves forward and is never removed: set back (or deleted, reading as "0"), it could
-- match what a process kept before the change, and a stale page would be served as current.
CREATE FUNCTION tollgate_page_versions_forward() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' OR NEW."tag" <> OLD."tag" OR NEW."version" <= OLD."version" THEN
    RAISE EXCEPTION 'page_versions only move forward (tag %)', OLD."tag" USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER "page_versions_forward" BEFORE UPDATE OR DELETE ON "page_versions"
  FOR EACH ROW EXECUTE FUNCTION tollgate_page_versions_forward();

-- TG_ARGV[0]: the column holding the listing's id; TG_ARGV[1]: 'listing', 'catalog' or 'both'.
CREATE FUNCTION tollgate_page_mark() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  cur TEXT := coalesce(current_setting('tollgate.page_tags', true), '');
  tags TEXT[] := '{}';
  t TEXT;
BEGIN
  IF TG_ARGV[1] IN ('catalog', 'both') THEN tags := tags || 'catalog'::text; END IF;
  IF TG_ARGV[1] IN ('listing', 'both') THEN
    IF TG_OP <> 'DELETE' THEN tags := tags || ('listing:' || (to_jsonb(NEW) ->> TG_ARGV[0])); END IF;
    IF TG_OP <> 'INSERT' THEN tags := tags || ('listing:' || (to_jsonb(OLD) ->> TG_ARGV[0])); END IF;
  END IF;
  FOREACH t IN ARRAY tags LOOP
    IF t IS NOT NULL AND position(',' || t || ',' IN cur) = 0 THEN
      cur := CASE WHEN cur = '' THEN ',' ELSE cur END || t || ',';
    END IF;
  END LOOP;
  PERFORM set_config('tollgate.page_tags', cur, true);
  RETURN NULL;
END $$;

CREATE FUNCTION tollgate_page_flush() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  cur TEXT := coalesce(current_setting('tollgate.page_tags', true), '');
BEGIN
  IF cur = '' THEN RETURN NULL; END IF;
  PERFORM set_config('tollgate.page_tags', '', true);
  INSERT INTO "page_versions" ("tag", "version")
    SELECT t, nextval('page_version_seq') FROM (SELECT DISTINCT t FROM unnest(string_to_array(trim(BOTH ',' FROM cur), ',')) AS t ORDER BY t) AS s
    -- Drawn again once the row is locked: a number drawn before waiting on another writer's commit would be lower than its.
    ON CONFLICT ("tag") DO UPDATE SET "version" = nextval('page_version_seq');
  RETURN NULL;
END $$;

-- One mark trigger and one deferred flush trigger per (table, events, condition).
CREATE FUNCTION tollgate_page_triggers(tbl TEXT, events TEXT, cond TEXT, col TEXT, scope TEXT) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  suffix TEXT := lower(replace(events, ' OR ', '_'));
  w TEXT := CASE WHEN cond = '' THEN '' ELSE 'WHEN (' || cond || ')' END;
BEGIN
  EXECUTE format('CREATE TRIGGER %I AFTER %s ON %I FOR EACH ROW %s EXECUTE FUNCTION tollgate_page_mark(%L, %L)', tbl || '_page_mark_' || suffix, events, tbl, w, col, scope);
  EXECUTE format('CREATE CONSTRAINT TRIGGER %I AFTER %s ON %I DEFERRABLE INITIALLY DEFERRED FOR EACH ROW %s EXECUTE FUNCTION tollgate_page_flush()', tbl || '_page_flush_' || suffix, events, tbl, w);
END $$;

-- The listing itself (every column the public shape reads, the levers browse orders by, the result pointer).
SELECT tollgate_page_triggers('listings', 'INSERT OR DELETE', '', 'id', 'both');
SELECT tollgate_page_triggers('listings', 'UPDATE', 'OLD.* IS DISTINCT FROM NEW.*', 'id', 'both');
-- Its endpoints (rewritten on a save): prices and schemas on tiles and pages.
SELECT tollgate_page_triggers('endpoints', 'INSERT OR UPDATE OR DELETE', '', 'listingId', 'both');
-- The browse order (the rank sweep's columns browse reads; not its bookkeeping such as rankedAt).
SELECT tollgate_page_triggers('listing_ranks', 'INSERT OR DELETE', '', 'listingId', 'catalog');
SELECT tollgate_page_triggers('listing_ranks', 'UPDATE',
  '(OLD."rankScore", OLD."tier", OLD."sortWeight", OLD."published", OLD."category", OLD."gate") IS DISTINCT FROM (NEW."rankScore", NEW."tier", NEW."sortWeight", NEW."published", NEW."category", NEW."gate")',
  'listingId', 'catalog');
-- A new stored trust grade: tiles, the listing page and the endpoint page.
SELECT tollgate_page_triggers('trust_grade_latest', 'INSERT OR DELETE', '', 'listingId', 'both');
SELECT tollgate_page_triggers('trust_grade_latest', 'UPDATE', 'OLD."gradeId" IS DISTINCT FROM NEW."gradeId"', 'listingId', 'both');
-- The listing page's measured facts: health samples, observations, quotes, the stored wash check.
SELECT tollgate_page_triggers('monitor_health_samples', 'INSERT', '', 'listingId', 'listing');
SELECT tollgate_page_triggers('trust_observations', 'INSERT', '', 'listingId', 'listing');
SELECT tollgate_page_triggers('price_quotes', 'INSERT', '', 'listingId', 'listing');
SELECT tollgate_page_triggers('listing_wash', 'INSERT OR DELETE', '', 'listingId', 'listing');
SELECT tollgate_page_triggers('listing_wash', 'UPDATE', 'OLD."excluded"::text IS DISTINCT FROM NEW."excluded"::text', 'listingId', 'listing');
DROP FUNCTION tollgate_page_triggers(TEXT, TEXT, TEXT, TEXT, TEXT);
