-- An endpoint moved to another URL is another server (docs/TRUST.md "Revisions"): the revision row
-- records the endpoint's URL as it was listed (scheme, host and path; NULL on rows written before this
-- column, which then compare as unknown), and a change of it starts a revision whose `changes` name
-- `url`. Observations of the earlier server then weigh as the rubric's on_revision says (halved or
-- reset), and the revision shows on the grade's watch for 7 days.
ALTER TABLE "trust_endpoint_revisions" ADD COLUMN "url" TEXT;
ALTER TABLE "trust_endpoint_revisions" DROP CONSTRAINT "trust_endpoint_revisions_changes";
ALTER TABLE "trust_endpoint_revisions" ADD CONSTRAINT "trust_endpoint_revisions_changes"
  CHECK ("changes" <@ ARRAY['price','payTo','description','schemas','url']::text[]);
