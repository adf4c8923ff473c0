-- The daily root (docs/ATTESTATIONS.md "The daily root", lib/attest/daily-root.ts): per UTC day the
-- Merkle root of that day's evidence-bundle hashes, the exact set of hashes it commits to, and the one
-- transaction that wrote it to EvidenceRoots. A row is written before the send ('sending'), names the
-- transaction once the node accepted it ('sent') and is 'published' once the chain's rootOf(day) is
-- this root; a root the chain holds that is not ours is recorded as 'conflict' and never proved against.

CREATE TABLE "evidence_roots" (
    "day" INTEGER NOT NULL,
    "root" TEXT NOT NULL,
    "leaves" INTEGER NOT NULL,
    "network" TEXT NOT NULL,
    "contract" TEXT NOT NULL,
    "publisher" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "transaction" TEXT,
    "chainRoot" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "publishedAt" TIMESTAMP(3),

    CONSTRAINT "evidence_roots_pkey" PRIMARY KEY ("day"),
    CONSTRAINT "evidence_roots_day_range" CHECK ("day" >= 0),
    CONSTRAINT "evidence_roots_root_hex" CHECK ("root" ~ '^0x[0-9a-f]{64}$' AND "root" <> '0x0000000000000000000000000000000000000000000000000000000000000000'),
    CONSTRAINT "evidence_roots_leaves_positive" CHECK ("leaves" > 0),
    CONSTRAINT "evidence_roots_contract_hex" CHECK ("contract" ~ '^0x[0-9a-f]{40}$'),
    CONSTRAINT "evidence_roots_publisher_hex" CHECK ("publisher" ~ '^0x[0-9a-f]{40}$'),
    CONSTRAINT "evidence_roots_status_known" CHECK ("status" IN ('sending', 'sent', 'published', 'conflict')),
    CONSTRAINT "evidence_roots_transaction_hex" CHECK ("transaction" IS NULL OR "transaction" ~ '^0x[0-9a-f]{64}$'),
    CONSTRAINT "evidence_roots_chain_root_hex" CHECK ("chainRoot" IS NULL OR "chainRoot" ~ '^0x[0-9a-f]{64}$'),
    CONSTRAINT "evidence_roots_published_has_transaction" CHECK ("status" NOT IN ('sent', 'published') OR "transaction" IS NOT NULL)
);

CREATE TABLE "evidence_root_leaves" (
    "day" INTEGER NOT NULL,
    "bundleSha256" TEXT NOT NULL,

    CONSTRAINT "evidence_root_leaves_pkey" PRIMARY KEY ("day", "bundleSha256"),
    CONSTRAINT "evidence_root_leaves_day_fkey" FOREIGN KEY ("day") REFERENCES "evidence_roots"("day") ON DELETE RESTRICT ON UPDATE RESTRICT,
    CONSTRAINT "evidence_root_leaves_sha256_hex" CHECK ("bundleSha256" ~ '^[0-9a-f]{64}$')
);

-- What a root commits to never changes once the row is written: the root, its leaves, where it went;
-- a transaction once named stays named; a published row stays published. Neither table loses rows.
CREATE FUNCTION tollgate_evidence_root_written_once() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION 'evidence_roots rows are never deleted (day %)', OLD."day" USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF NEW."day" <> OLD."day" OR NEW."root" <> OLD."root" OR NEW."leaves" <> OLD."leaves" OR NEW."network" <> OLD."network"
     OR NEW."contract" <> OLD."contract" OR NEW."publisher" <> OLD."publisher" THEN
    RAISE EXCEPTION 'evidence_roots day %: what the root commits to never changes (UPDATE refused)', OLD."day" USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF OLD."transaction" IS NOT NULL AND NEW."transaction" IS DISTINCT FROM OLD."transaction" THEN
    RAISE EXCEPTION 'evidence_roots day %: its transaction % is named once (UPDATE refused)', OLD."day", OLD."transaction" USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF OLD."status" IN ('published', 'conflict') AND NEW."status" <> OLD."status" THEN
    RAISE EXCEPTION 'evidence_roots day % is %: final (UPDATE refused)', OLD."day", OLD."status" USING ERRCODE = 'insufficient_privilege';
  END IF;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER "evidence_roots_written_once" BEFORE UPDATE OR DELETE ON "evidence_roots"
  FOR EACH ROW EXECUTE FUNCTION tollgate_evidence_root_written_once();

CREATE FUNCTION tollgate_evidence_root_leaves_fixed() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF EXISTS (SELECT 1 FROM "evidence_roots" r WHERE r."day" = NEW."day" AND r."status" <> 'sending') THEN
      RAISE EXCEPTION 'evidence_root_leaves: day % was sent; its leaves are fixed (INSERT refused)', NEW."day" USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'evidence_root_leaves rows are never changed or deleted (day %)', OLD."day" USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER "evidence_root_leaves_fixed" BEFORE INSERT OR UPDATE OR DELETE ON "evidence_root_leaves"
  FOR EACH ROW EXECUTE FUNCTION tollgate_evidence_root_leaves_fixed();

CREATE TRIGGER "evidence_roots_no_truncate" BEFORE TRUNCATE ON "evidence_roots"
  FOR EACH STATEMENT EXECUTE FUNCTION tollgate_keep_history_no_truncate();
CREATE TRIGGER "evidence_root_leaves_no_truncate" BEFORE TRUNCATE ON "evidence_root_leaves"
  FOR EACH STATEMENT EXECUTE FUNCTION tollgate_keep_history_no_truncate();
