-- The queue's hot path (lib/analyses/lease.ts, docs/QUEUE.md "Throughput"). No columns change.

-- The state machine trigger now carries the legal moves in its WHEN clause, evaluated in C for each
-- row, so the PL/pgSQL function runs only for a move it will refuse (and still refuses it the same
-- way, with the same message). Before, every claimed and every finished row paid a PL/pgSQL call.
-- The function itself is unchanged (20261202120100_constraints): the same check, belt and braces.
DROP TRIGGER "analyses_state_transition" ON "catalog_scoring_analyses";
CREATE TRIGGER "analyses_state_transition" BEFORE UPDATE OF "state" ON "catalog_scoring_analyses"
  FOR EACH ROW
  WHEN (OLD."state" IS DISTINCT FROM NEW."state" AND NOT (
       (OLD."state" = 'deferred' AND NEW."state" IN ('queued', 'failed'))
    OR (OLD."state" = 'queued' AND NEW."state" IN ('running', 'deferred', 'failed'))
    OR (OLD."state" = 'running' AND NEW."state" IN ('queued', 'succeeded', 'failed'))))
  EXECUTE FUNCTION tollgate_analysis_transition();
