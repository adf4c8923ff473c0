-- An endpoint's trust key (docs/TRUST.md "Which history an endpoint has"): the path its trust history
-- (observations, revisions, grades, canary samples) is filed under. It is the listed path when the
-- endpoint is first saved and is carried by the save to the endpoint at the same URL, so a path written
-- with a trailing slash or a base-URL prefix moved into the paths keeps the endpoint's history.
ALTER TABLE "endpoints" ADD COLUMN "trustPath" TEXT;
UPDATE "endpoints" SET "trustPath" = "path";

CREATE FUNCTION tollgate_endpoint_trust_path() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW."trustPath" := coalesce(NEW."trustPath", NEW."path");
  RETURN NEW;
END $$;

CREATE TRIGGER "endpoints_trust_path" BEFORE INSERT OR UPDATE ON "endpoints"
  FOR EACH ROW EXECUTE FUNCTION tollgate_endpoint_trust_path();

ALTER TABLE "endpoints" ALTER COLUMN "trustPath" SET NOT NULL;
CREATE UNIQUE INDEX "endpoints_listingId_method_trustPath_key" ON "endpoints"("listingId", "method", "trustPath");
