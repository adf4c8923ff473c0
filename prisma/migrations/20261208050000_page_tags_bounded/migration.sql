-- A transaction's page tags stay bounded (docs/SURFACES.md "Cached public pages"): the marks were one
-- growing text setting, searched and copied per row, so a bulk write of n listings cost O(n²) (a
-- loader's 5,000-row insert ran for minutes). Past 4 KB of tags the transaction marks `*` instead,
-- which every cached page's versions include: one bulk write refreshes every page once, at commit.
CREATE OR REPLACE FUNCTION tollgate_page_mark() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  cur TEXT := coalesce(current_setting('tollgate.page_tags', true), '');
  tags TEXT[] := '{}';
  t TEXT;
BEGIN
  IF cur = ',*,' THEN RETURN NULL; END IF;
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
  IF octet_length(cur) > 4096 THEN cur := ',*,'; END IF;
  PERFORM set_config('tollgate.page_tags', cur, true);
  RETURN NULL;
END $$;
