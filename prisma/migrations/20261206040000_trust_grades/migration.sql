-- Stored trust grades and their signed attestations (docs/TRUST.md "Stored grades", docs/ATTESTATIONS.md):
-- one insert-only row per scoring of an endpoint with a new evidence bundle, the bundles' canonical bytes
-- (gzip) by their hash, and one pointer per endpoint to its latest grade.

CREATE TABLE "trust_grades" (
    "id" TEXT NOT NULL,
    "listingId" TEXT NOT NULL,
    "endpointId" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "score" DOUBLE PRECISION,
    "grade" TEXT,
    "bandLow" DOUBLE PRECISION,
    "bandHigh" DOUBLE PRECISION,
    "confidence" TEXT,
    "verdict" TEXT NOT NULL,
    "flags" TEXT[],
    "detail" JSONB NOT NULL,
    "rubricRef" TEXT NOT NULL,
    "readingRef" TEXT NOT NULL,
    "rubricSha256" TEXT NOT NULL,
    "readingSha256" TEXT NOT NULL,
    "seed" INTEGER NOT NULL,
    "scoredAt" TIMESTAMP(3) NOT NULL,
    "bundleSha256" TEXT NOT NULL,
    "observations" INTEGER NOT NULL,
    "statement" JSONB NOT NULL,
    "envelope" JSONB NOT NULL,
    "keyid" TEXT NOT NULL,
    "issuedAt" TIMESTAMP(3) NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "trust_grades_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "trust_grades_verdict" CHECK ("verdict" IN ('avoid', 'down', 'caution', 'insufficient_evidence', 'ok')),
    CONSTRAINT "trust_grades_confidence" CHECK ("confidence" IS NULL OR "confidence" IN ('high', 'medium', 'low')),
    CONSTRAINT "trust_grades_measured" CHECK (("score" IS NULL) = ("grade" IS NULL)),
    CONSTRAINT "trust_grades_band" CHECK (("bandLow" IS NULL) = ("bandHigh" IS NULL) AND ("bandLow" IS NULL OR "bandLow" <= "bandHigh")),
    CONSTRAINT "trust_grades_hash" CHECK ("bundleSha256" ~ '^[0-9a-f]{64}$' AND "rubricSha256" ~ '^[0-9a-f]{64}$' AND "readingSha256" ~ '^[0-9a-f]{64}$'),
    CONSTRAINT "trust_grades_expiry" CHECK ("expiresAt" > "issuedAt"),
    CONSTRAINT "trust_grades_observations" CHECK ("observations" >= 0)
);
CREATE UNIQUE INDEX "trust_grades_once" ON "trust_grades"("listingId", "method", "path", "bundleSha256");
CREATE INDEX "trust_grades_endpoint_idx" ON "trust_grades"("listingId", "method", "path", "scoredAt");
CREATE INDEX "trust_grades_endpoint_id_idx" ON "trust_grades"("endpointId", "scoredAt");
CREATE INDEX "trust_grades_issued_idx" ON "trust_grades"("issuedAt");

CREATE TABLE "trust_evidence_bundles" (
    "sha256" TEXT NOT NULL,
    "encoding" TEXT NOT NULL,
    "bytes" BYTEA NOT NULL,
    "size" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "trust_evidence_bundles_pkey" PRIMARY KEY ("sha256"),
    CONSTRAINT "trust_evidence_bundles_hash" CHECK ("sha256" ~ '^[0-9a-f]{64}$'),
    CONSTRAINT "trust_evidence_bundles_encoding" CHECK ("encoding" IN ('gzip', 'identity')),
    CONSTRAINT "trust_evidence_bundles_size" CHECK ("size" >= 0)
);

CREATE TABLE "trust_grade_latest" (
    "listingId" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "gradeId" TEXT NOT NULL,
    "scoredAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "trust_grade_latest_pkey" PRIMARY KEY ("listingId", "method", "path")
);
CREATE UNIQUE INDEX "trust_grade_latest_gradeId_key" ON "trust_grade_latest"("gradeId");
ALTER TABLE "trust_grade_latest" ADD CONSTRAINT "trust_grade_latest_gradeId_fkey" FOREIGN KEY ("gradeId") REFERENCES "trust_grades"("id") ON DELETE RESTRICT ON UPDATE RESTRICT;

-- A grade's bundle is stored before (or with) the grade that names it.
ALTER TABLE "trust_grades" ADD CONSTRAINT "trust_grades_bundle_fkey" FOREIGN KEY ("bundleSha256") REFERENCES "trust_evidence_bundles"("sha256") ON DELETE RESTRICT ON UPDATE RESTRICT;

-- Grades and bundles are insert-only (tollgate_append_only: migration 20261203180000_immutability_guards).
CREATE TRIGGER "trust_grades_append_only" BEFORE UPDATE OR DELETE ON "trust_grades"
  FOR EACH ROW EXECUTE FUNCTION tollgate_append_only();
CREATE TRIGGER "trust_evidence_bundles_append_only" BEFORE UPDATE OR DELETE ON "trust_evidence_bundles"
  FOR EACH ROW EXECUTE FUNCTION tollgate_append_only();
CREATE TRIGGER "trust_grades_no_truncate" BEFORE TRUNCATE ON "trust_grades"
  FOR EACH STATEMENT EXECUTE FUNCTION tollgate_keep_history_no_truncate();
CREATE TRIGGER "trust_evidence_bundles_no_truncate" BEFORE TRUNCATE ON "trust_evidence_bundles"
  FOR EACH STATEMENT EXECUTE FUNCTION tollgate_keep_history_no_truncate();

-- The latest pointer only moves forward in time.
CREATE FUNCTION tollgate_trust_grade_latest_forward() RETURNS trigger AS $$
BEGIN
  IF NEW."scoredAt" < OLD."scoredAt" THEN
    RAISE EXCEPTION 'trust_grade_latest for % % % moves only forward (% < %)', OLD."listingId", OLD."method", OLD."path", NEW."scoredAt", OLD."scoredAt" USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER "trust_grade_latest_forward" BEFORE UPDATE ON "trust_grade_latest"
  FOR EACH ROW EXECUTE FUNCTION tollgate_trust_grade_latest_forward();
