-- The Bazaar's discovery API (docs/DISCOVERY.md) reads one narrow row per x402 endpoint a listing's
-- published readiness result was probed with: the endpoint's 402 as the probe read it (its accepts in
-- the x402 v2 PaymentRequirements shape, its extensions), and what the filters match. A trigger keeps
-- it whenever the listing's result pointer moves, so every writer keeps it right; the rows derive
-- from immutable results and evidence, so nothing else can make them stale.
CREATE TABLE "discovery_resources" (
    "listingId" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "resource" TEXT NOT NULL,
    "x402Version" INTEGER NOT NULL,
    "accepts" JSONB NOT NULL,
    -- One object per accepts entry: {scheme, network, asset, payTo}, addresses lower-cased when EVM.
    "match" JSONB NOT NULL,
    "extensionKeys" TEXT[] NOT NULL,
    "extensions" JSONB,
    "description" TEXT,
    "mimeType" TEXT,
    "probedAt" TIMESTAMP(3) NOT NULL,
    "resultId" TEXT NOT NULL,
    -- The listing's publicationState = 'published' and its search vector, copied from listing_search by
    -- the triggers below: search intersects the text index and the filters' indexes on this one table.
    "published" BOOLEAN NOT NULL,
    "searchVector" tsvector,

    CONSTRAINT "discovery_resources_pkey" PRIMARY KEY ("listingId", "method", "path"),
    CONSTRAINT "discovery_resources_listingId_fkey" FOREIGN KEY ("listingId") REFERENCES "listings"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

CREATE INDEX "discovery_resources_match_idx" ON "discovery_resources" USING GIN ("match" jsonb_path_ops);
CREATE INDEX "discovery_resources_extensions_idx" ON "discovery_resources" USING GIN ("extensionKeys");
CREATE INDEX "discovery_resources_search_idx" ON "discovery_resources" USING GIN ("searchVector");
-- The list's order: listing id (bytewise), then the endpoint's place in the probe.
CREATE INDEX "discovery_resources_list_idx" ON "discovery_resources" ("listingId" COLLATE "C", "position") WHERE "published";

-- An EVM address compares case-insensitively; any other address (Solana's base58) exactly.
CREATE FUNCTION tollgate_pay_to_key(a TEXT) RETURNS TEXT AS $$
  SELECT CASE WHEN a ~ '^0[xX][0-9a-fA-F]{40}$' THEN lower(a) ELSE a END
$$ LANGUAGE sql IMMUTABLE;

CREATE FUNCTION tollgate_discovery_sync(lid TEXT) RETURNS void AS $$
BEGIN
  DELETE FROM "discovery_resources" WHERE "listingId" = lid;
  INSERT INTO "discovery_resources" ("listingId", "method", "path", "position", "resource", "x402Version", "accepts", "match",
                                     "extensionKeys", "extensions", "description", "mimeType", "probedAt", "resultId", "published", "searchVector")
  SELECT lid, ep->>'method', ep->>'path', pos::int, ep->>'url',
         CASE WHEN ep->'challenge'->'x402'->>'x402Version' IN ('1', '2') THEN (ep->'challenge'->'x402'->>'x402Version')::int ELSE 2 END,
         (SELECT jsonb_agg(jsonb_strip_nulls(jsonb_build_object('scheme', q->>'scheme', 'network', q->>'network', 'amount', q->>'amount',
                 'asset', q->>'asset', 'payTo', q->>'payTo', 'maxTimeoutSeconds', q->'maxTimeoutSeconds', 'extra', q->'extra')) ORDER BY o)
            FROM jsonb_array_elements(ep->'challenge'->'requirements') WITH ORDINALITY AS r(q, o)),
         (SELECT jsonb_agg(jsonb_strip_nulls(jsonb_build_object('scheme', q->>'scheme', 'network', q->>'network', 'asset', tollgate_pay_to_key(q->>'asset'),
                 'payTo', tollgate_pay_to_key(q->>'payTo'))))
            FROM jsonb_array_elements(ep->'challenge'->'requirements') AS r(q)),
         CASE WHEN jsonb_typeof(ep->'challenge'->'x402'->'extensions') = 'object'
              THEN ARRAY(SELECT jsonb_object_keys(ep->'challenge'->'x402'->'extensions')) ELSE ARRAY[]::text[] END,
         CASE WHEN jsonb_typeof(ep->'challenge'->'x402'->'extensions') = 'object' THEN ep->'challenge'->'x402'->'extensions' END,
         CASE WHEN jsonb_typeof(ep->'challenge'->'x402'->'resource') = 'object' THEN ep->'challenge'->'x402'->'resource'->>'description' END,
         CASE WHEN jsonb_typeof(ep->'challenge'->'x402'->'resource') = 'object' THEN ep->'challenge'->'x402'->'resource'->>'mimeType' END,
         pe."probedAt", r."id", l."publicationState" = 'published', l."searchVector"
    FROM "listings" l
    JOIN "catalog_scoring_results" r ON r."id" = l."currentResultId"
    JOIN "probe_evidence" pe ON pe."id" = r."evidenceId"
    CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(pe."evidence"->'endpoints') = 'array' THEN pe."evidence"->'endpoints' ELSE '[]'::jsonb END) WITH ORDINALITY AS e(ep, pos)
   WHERE l."id" = lid
     AND jsonb_typeof(ep->'challenge'->'requirements') = 'array' AND jsonb_array_length(ep->'challenge'->'requirements') > 0
     AND ep->>'method' IS NOT NULL AND ep->>'path' IS NOT NULL AND ep->>'url' IS NOT NULL
  ON CONFLICT DO NOTHING;
END;
$$ LANGUAGE plpgsql;

CREATE FUNCTION tollgate_discovery_sync_trigger() RETURNS trigger AS $$
BEGIN
  PERFORM tollgate_discovery_sync(NEW."id");
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER "listings_discovery_insert" AFTER INSERT ON "listings"
  FOR EACH ROW WHEN (NEW."currentResultId" IS NOT NULL) EXECUTE FUNCTION tollgate_discovery_sync_trigger();
CREATE TRIGGER "listings_discovery_update" AFTER UPDATE OF "currentResultId" ON "listings"
  FOR EACH ROW WHEN (OLD."currentResultId" IS DISTINCT FROM NEW."currentResultId") EXECUTE FUNCTION tollgate_discovery_sync_trigger();

-- listing_search holds the listing's state and vector as search reads them; its every write is copied here.
CREATE FUNCTION tollgate_discovery_search_copy() RETURNS trigger AS $$
BEGIN
  UPDATE "discovery_resources" SET "published" = (NEW."publicationState" = 'published'), "searchVector" = NEW."searchVector"
   WHERE "listingId" = NEW."id" AND ("published" IS DISTINCT FROM (NEW."publicationState" = 'published') OR "searchVector" IS DISTINCT FROM NEW."searchVector");
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER "listing_search_discovery" AFTER INSERT OR UPDATE ON "listing_search"
  FOR EACH ROW EXECUTE FUNCTION tollgate_discovery_search_copy();

SELECT tollgate_discovery_sync("id") FROM "listings" WHERE "currentResultId" IS NOT NULL;

-- The quality block reads a page's endpoints' payments in 30 days: one index range each.
CREATE INDEX "router_payments_endpoint_idx" ON "router_payments" ("endpointId", "createdAt") WHERE "status" = 'settled';
