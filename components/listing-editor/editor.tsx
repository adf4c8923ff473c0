"use client";
/**
 * The listing editor, the client boundary. Validation runs on the server (the save's own gate, so ajv
 * stays out of the bundle); edits are never lost: a refused save is shown beside the fields.
 */
import { useState } from "react";
import type { ListingDocument } from "@/lib/listing-document/document";
import { DOCUMENT_BYTES_LIMIT } from "@/lib/listing-document/limits";
import type { Err } from "./model";
import { FieldErrors } from "./fields";
import { ListingFields } from "./listing-fields";
import { ErrorSummary } from "./error-summary";
import { SaveBar } from "./save-bar";
import { Estimate } from "./estimate";
import { EndpointsSection, PriceNoteSection } from "./sections";
import { useChecks, useDocument, useSave } from "./use-editor";

export interface ListingEditorProps {
  initial: ListingDocument;
  listingId: string | null;
  publicationState: string | null;
  /** The URL the draft was imported from (kept as the listing's source). */
  source?: string | null;
  /** The published readiness score, when there is one: the estimate says why it starts below it. */
  publishedTotal?: number | null;
}

export function ListingEditor({ initial, listingId, publicationState, source, publishedTotal = null }: ListingEditorProps) {
  const { doc, json, jsonErrors, set, setOp, setEp, setPricing, addEndpoint, setJsonField, removeEndpoint } = useDocument(initial);
  // The price change note belongs to one save (lib/listings/price-change-note.ts), not to the document.
  const [priceNote, setPriceNote] = useState<string | null>(null);
  const { errors, setErrors, limitErrors, docBytes, estimate, errFor } = useChecks(doc, priceNote);
  const { submit, saveError, pending, busyIntent, summaryRef } = useSave({ listingId, source, doc, priceNote, docBytes, jsonErrors, limitErrors, setErrors });

  const allErrors: Err[] = [
    ...Object.entries(jsonErrors).map(([k, message]) => ({ pointer: `/endpoints/${k}`, message })),
    ...limitErrors,
    ...errors.filter((e) => !limitErrors.some((l) => l.pointer === e.pointer)),
  ];
  const published = publicationState === "published";

  return (
    <div className="grid gap-6 lg:grid-cols-[1fr_20rem]">
      <FieldErrors value={errFor}>
        <form
          className="min-w-0 space-y-6"
          onSubmit={(e) => {
            e.preventDefault();
            submit(published ? "reanalyse" : "draft");
          }}
          noValidate
        >
          <ErrorSummary summaryRef={summaryRef} saveError={saveError} errors={allErrors} />

          <ListingFields doc={doc} set={set} setOp={setOp} networkErrors={errors.filter((e) => e.pointer.startsWith("/networks"))} />

          <EndpointsSection
            endpoints={doc.endpoints}
            json={json}
            jsonErrors={jsonErrors}
            onAdd={addEndpoint}
            onJson={setJsonField}
            onChange={setEp}
            onPricing={setPricing}
            onRemove={removeEndpoint}
          />

          {listingId && <PriceNoteSection value={priceNote} onChange={setPriceNote} />}

          <SaveBar published={published} pending={pending} busyIntent={busyIntent} submit={submit} size={{ bytes: docBytes, limit: DOCUMENT_BYTES_LIMIT }} />
        </form>
      </FieldErrors>

      <Estimate estimate={estimate} publishedTotal={publishedTotal} />
    </div>
  );
}
