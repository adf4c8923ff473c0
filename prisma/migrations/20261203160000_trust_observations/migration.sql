-- The trust grade's observations (docs/TRUST.md "Observations", docs/spec/trust-rubric.md): one
-- immutable row per check outcome of one endpoint, written by lib/trust/observe in the transaction
-- that stores the probe evidence, the health sample or the completed canary sample it was read from.
--
-- An endpoint is (listingId, method, path): a listing's endpoint rows are rewritten (new ids) when its
-- document is saved, and the observations outlive that; endpointId is the row's id when observed.
CREATE TABLE "trust_observations" (
    "id" TEXT NOT NULL,
    "listingId" TEXT NOT NULL,
    "endpointId" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "check" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "outcome" TEXT NOT NULL,
    -- Curve checks (R3, R7): milliseconds; null for rate checks.
    "value" DOUBLE PRECISION,
    "observedAt" TIMESTAMP(3) NOT NULL,
    "vantage" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "receipt" JSONB NOT NULL,
    -- Where it was read from: 'analysis' (probe_evidence), 'monitor' (monitor_health_samples), 'canary' (canary_samples), and that row's id.
    "source" TEXT NOT NULL,
    "sourceId" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "trust_observations_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "trust_observations_check" CHECK ("check" IN ('R1','R2','R3','R4','R5','R6','R7','C1','C2','C3','C4','C5','C6','H1','H2','H3','H4','H5','H6','H7','H8','H9','S1','S2','S3','S4','S5')),
    CONSTRAINT "trust_observations_kind" CHECK ("kind" IN ('free','paid')),
    -- The rubric's kind of each check, held here too so a row can never carry the wrong one.
    CONSTRAINT "trust_observations_kind_of_check" CHECK (("kind" = 'paid') = ("check" IN ('R4','R5','R6','R7','C6','H5','H6','H7','H8','H9','S3'))),
    CONSTRAINT "trust_observations_outcome" CHECK ("outcome" IN ('pass','fail','na','unmeasured')),
    CONSTRAINT "trust_observations_value" CHECK (("value" IS NULL OR ("check" IN ('R3','R7') AND "value" >= 0 AND "value" < 'Infinity'::float8))),
    CONSTRAINT "trust_observations_vantage" CHECK ("vantage" <> ''),
    CONSTRAINT "trust_observations_revision" CHECK ("revision" >= 1),
    CONSTRAINT "trust_observations_receipt" CHECK (jsonb_typeof("receipt") = 'object'),
    CONSTRAINT "trust_observations_source" CHECK ("source" IN ('analysis','monitor','canary'))
);

-- One outcome per check per endpoint per source row: a retried write is refused, never doubled.
CREATE UNIQUE INDEX "trust_observations_once" ON "trust_observations" ("source", "sourceId", "method", "path", "check");
-- The reader and the history checks (H2, H3) read one endpoint's rows in time order.
CREATE INDEX "trust_observations_endpoint_idx" ON "trust_observations" ("listingId", "method", "path", "observedAt");

CREATE FUNCTION tollgate_trust_observation_immutable() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION 'trust_observations rows are immutable (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER "trust_observations_immutable" BEFORE UPDATE OR DELETE ON "trust_observations"
  FOR EACH ROW EXECUTE FUNCTION tollgate_trust_observation_immutable();

-- An endpoint's revisions: revision 1 starts with the endpoint; a change of its listed price, payTo,
-- description or schemas starts the next. Each row keeps the state it started with (the listed price,
-- the payTo seen in the 402, digests of the description and of the schemas), so the next change is
-- found by comparison. Append-only like the observations.
CREATE TABLE "trust_endpoint_revisions" (
    "listingId" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "startedAt" TIMESTAMP(3) NOT NULL,
    "changes" TEXT[] NOT NULL,
    "note" TEXT,
    "listedPrice" JSONB,
    "payTo" TEXT,
    "descriptionSha256" TEXT,
    "schemasSha256" TEXT,
    -- What the revision was derived from: 'scored_document:<result id>', 'listing', 'probe_evidence:<id>', …
    "derivedFrom" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "trust_endpoint_revisions_pkey" PRIMARY KEY ("listingId", "method", "path", "revision"),
    CONSTRAINT "trust_endpoint_revisions_revision" CHECK ("revision" >= 1),
    CONSTRAINT "trust_endpoint_revisions_changes" CHECK ("changes" <@ ARRAY['price','payTo','description','schemas']::text[]),
    CONSTRAINT "trust_endpoint_revisions_first" CHECK (("revision" = 1) = (cardinality("changes") = 0))
);

CREATE FUNCTION tollgate_trust_revision_immutable() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION 'trust_endpoint_revisions rows are immutable (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER "trust_endpoint_revisions_immutable" BEFORE UPDATE OR DELETE ON "trust_endpoint_revisions"
  FOR EACH ROW EXECUTE FUNCTION tollgate_trust_revision_immutable();
