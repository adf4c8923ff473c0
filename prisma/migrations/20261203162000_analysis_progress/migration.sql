-- Live progress of a running analysis (issue 19 item 7): the probe's endpoints done of all, as the
-- worker last reported them on its heartbeat. Null until the probe reports; never part of a result.
ALTER TABLE "catalog_scoring_analyses" ADD COLUMN "progressDone" INTEGER;
ALTER TABLE "catalog_scoring_analyses" ADD COLUMN "progressTotal" INTEGER;
ALTER TABLE "catalog_scoring_analyses" ADD CONSTRAINT "catalog_scoring_analyses_progress_check"
  CHECK ("progressDone" IS NULL OR ("progressDone" >= 0 AND "progressTotal" IS NOT NULL AND "progressDone" <= "progressTotal"));
