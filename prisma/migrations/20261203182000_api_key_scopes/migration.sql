-- Per-key API scopes (issue 19; lib/apikeys/scopes.ts). Each key names what it may do, and every
-- route that accepts a key checks its own scope (403 insufficient_scope naming the one missing):
--   router:select  POST /router/select and the MCP tool select_services
--   router:call    ANY /router/call/<listing>/<path>, the paying relay
-- Keys made before scopes could call both, so they keep both: nothing that worked stops working.
-- New keys name their scopes when they are made (no default), and a key has at least one.
ALTER TABLE "api_keys" ADD COLUMN "scopes" TEXT[] NOT NULL DEFAULT ARRAY['router:select', 'router:call']::TEXT[];
ALTER TABLE "api_keys" ALTER COLUMN "scopes" DROP DEFAULT;
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_scopes_known" CHECK (
  cardinality("scopes") > 0 AND "scopes" <@ ARRAY['router:select', 'router:call']::TEXT[]
);
