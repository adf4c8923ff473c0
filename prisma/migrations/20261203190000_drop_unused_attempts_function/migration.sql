-- tollgate_attempts_append_only() (migration 20261203164000) has had no trigger since the queue's
-- hardening (20261203167000) gave the attempt log a trigger that lets archived rows leave. A function
-- nothing calls only misleads a reader of the schema; the rule it stated lives on in that trigger.
DROP FUNCTION tollgate_attempts_append_only();
