"use client";
/**
 * The listing editor: every field the readiness rules read, inline validation by JSON pointer (the
 * same validateListingDocument gate as saving, run on the server so ajv stays out of the bundle),
 * and a live provisional estimate (scoreReadiness with provisional: true, pure, in the browser).
 * This is the client boundary; its parts (fields, listing sections, endpoint and pricing editors,
 * error summary, save bar, estimate) are rendered inside it.
 *
 * Edits are never lost: each field's schema limit is checked here as the seller types
 * (lib/listing-document/limits.ts) and a save over any limit is refused before it is sent; a refusal
 * from the server (validation, conflict, or the action's 1 MiB body limit, which rejects the call
 * before the action runs) is caught and shown beside the fields, and the document stays in state.
 */
import { useRouter } from "next/navigation";
import { useEffect, useMemo, useRef, useState, useTransition } from "react";
import type { EndpointPricing, ListingDocument, ListingEndpoint } from "@/lib/listing-document/document";
import { scoreWithAdvice, type AdvisedResult } from "@/lib/scoring/readiness/advice";
import { CURRENT_RUBRIC } from "@/lib/scoring/readiness/rubric";
import { checkListingLimits, DOCUMENT_BYTES_LIMIT, formatBytes, utf8Bytes } from "@/lib/listing-document/limits";
import { saveListingAction, validateListingAction, type SaveActionInput } from "@/lib/surfaces/seller-actions";
import { checkPriceChangeNote, PRICE_CHANGE_NOTE_MAX, PRICE_CHANGE_NOTE_POINTER } from "@/lib/listings/price-change-note";
import { emptyEndpoint, emptyPricing, initialJsonTexts, jsonKey, withoutEndpoint, type Err, type JsonField } from "./model";
import { FieldErrors, Section, TextField } from "./fields";
import { toastAfterNavigation } from "../toast";
import { ListingFields } from "./listing-fields";
import { EndpointEditor } from "./endpoint-editor";
import { ErrorSummary } from "./error-summary";
import { SaveBar } from "./save-bar";
import { Estimate } from "./estimate";

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
  const router = useRouter();
  const [doc, setDoc] = useState<ListingDocument>(initial);
  // The price change note belongs to one save (lib/listings/price-change-note.ts), not to the document.
  const [priceNote, setPriceNote] = useState<string | null>(null);
  const [json, setJson] = useState<Record<string, string>>(() => initialJsonTexts(initial.endpoints));
  const [jsonErrors, setJsonErrors] = useState<Record<string, string>>({});
  const [errors, setErrors] = useState<Err[]>([]);
  const [saveError, setSaveError] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();
  const [busyIntent, setBusyIntent] = useState<SaveActionInput["intent"] | null>(null);
  const summaryRef = useRef<HTMLDivElement>(null);

  // The schema's limits, checked in the browser on every edit (no round trip, nothing sent).
  const limitErrors = useMemo(() => {
    const note = checkPriceChangeNote(priceNote);
    return [...checkListingLimits(doc), ...(note.ok ? [] : [{ pointer: PRICE_CHANGE_NOTE_POINTER, message: note.message }])];
  }, [doc, priceNote]);
  const tooLarge = limitErrors.some((e) => e.pointer === "");
  const docBytes = useMemo(() => utf8Bytes(JSON.stringify(doc)), [doc]);

  // Inline validation: debounced, on the server (the very gate the save uses). A document over the
  // body limit is not sent: the limits above already name what to shorten.
  useEffect(() => {
    if (tooLarge) return;
    let cancelled = false;
    const t = setTimeout(() => {
      validateListingAction(doc)
        .then((e) => !cancelled && setErrors(e))
        .catch(() => {});
    }, 450);
    return () => {
      cancelled = true;
      clearTimeout(t);
    };
  }, [doc, tooLarge]);

  const estimate = useMemo<AdvisedResult | null>(() => {
    try {
      return scoreWithAdvice(doc, null, CURRENT_RUBRIC, { provisional: true });
    } catch {
      return null;
    }
  }, [doc]);

  const errFor = (pointer: string) => {
    const own = [...limitErrors, ...errors.filter((e) => !limitErrors.some((l) => l.pointer === e.pointer))].filter((e) => e.pointer === pointer).map((e) => e.message);
    return own.length ? [...new Set(own)].join("; ") : null;
  };

  const set = <K extends keyof ListingDocument>(k: K, v: ListingDocument[K]) => setDoc((d) => ({ ...d, [k]: v }));
  const setOp = (k: keyof ListingDocument["operations"], v: string | null) => setDoc((d) => ({ ...d, operations: { ...d.operations, [k]: v } }));
  const setEp = (i: number, patch: Partial<ListingEndpoint>) => setDoc((d) => ({ ...d, endpoints: d.endpoints.map((e, j) => (j === i ? { ...e, ...patch } : e)) }));
  const setPricing = (i: number, patch: Partial<EndpointPricing>) =>
    setDoc((d) => ({ ...d, endpoints: d.endpoints.map((e, j) => (j === i ? { ...e, pricing: { ...(e.pricing ?? emptyPricing()), ...patch } } : e)) }));

  function setJsonField(i: number, f: JsonField, text: string) {
    const key = jsonKey(i, f);
    setJson((j) => ({ ...j, [key]: text }));
    if (text.trim() === "") {
      setJsonErrors(({ [key]: _drop, ...rest }) => rest);
      setEp(i, { [f]: null } as Partial<ListingEndpoint>);
      return;
    }
    try {
      const v = JSON.parse(text) as unknown;
      setJsonErrors(({ [key]: _drop, ...rest }) => rest);
      setEp(i, { [f]: v } as Partial<ListingEndpoint>);
    } catch (e) {
      setJsonErrors((j) => ({ ...j, [key]: `not valid JSON: ${(e as Error).message}` }));
    }
  }

  function removeEndpoint(i: number) {
    setDoc((d) => ({ ...d, endpoints: d.endpoints.filter((_, j) => j !== i) }));
    setJson((j) => withoutEndpoint(j, i));
    setJsonErrors({});
  }

  function submit(intent: SaveActionInput["intent"]) {
    setSaveError(null);
    if (Object.keys(jsonErrors).length) {
      setSaveError("Some JSON fields do not parse; fix the fields marked below first.");
      summaryRef.current?.focus();
      return;
    }
    if (limitErrors.length) {
      setSaveError(`${limitErrors.length === 1 ? "A field is" : `${limitErrors.length} fields are`} over the listing's limits, so nothing was sent. Your edits are kept: shorten the fields marked below.`);
      requestAnimationFrame(() => summaryRef.current?.focus());
      return;
    }
    setBusyIntent(intent);
    startTransition(async () => {
      let r: Awaited<ReturnType<typeof saveListingAction>>;
      try {
        r = await saveListingAction({ listingId, document: doc, intent, source: source ?? null, priceChangeNote: priceNote });
      } catch (e) {
        // The action never answered: the body limit (refused before the action runs), a dropped
        // connection or a server error. The edits stay in this page's state either way.
        setBusyIntent(null);
        const large = docBytes > DOCUMENT_BYTES_LIMIT / 2;
        setSaveError(
          large
            ? `The server refused the save: this listing is ${formatBytes(docBytes)} and a save can carry at most ${formatBytes(DOCUMENT_BYTES_LIMIT)}. Your edits are kept on this page; shorten the largest fields and save again.`
            : `The save did not reach the server (${(e as Error)?.message || "no answer"}). Your edits are kept on this page; save again in a moment.`,
        );
        requestAnimationFrame(() => summaryRef.current?.focus());
        return;
      }
      setBusyIntent(null);
      if (!r.ok) {
        setErrors(r.errors);
        setSaveError(r.message);
        requestAnimationFrame(() => summaryRef.current?.focus());
        return;
      }
      toastAfterNavigation(r.notice ?? (intent === "draft" ? "Changes saved." : intent === "publish" ? "Saved and published: the analysis is queued." : "Saved: the analysis is queued."));
      const q = r.analysisId ? `?analysis=${encodeURIComponent(r.analysisId)}` : "";
      router.push(`/dashboard/listings/${r.listingId}${q}`);
      router.refresh();
    });
  }

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

          <section aria-labelledby="endpoints-h" className="rounded-xl border border-line bg-white p-4 sm:p-5">
            <div className="flex flex-wrap items-center justify-between gap-2">
              <h2 id="endpoints-h" className="text-lg font-semibold">Endpoints <span className="text-sm font-normal text-muted">({doc.endpoints.length})</span></h2>
              <button type="button" onClick={() => setDoc((d) => ({ ...d, endpoints: [...d.endpoints, emptyEndpoint()] }))} className="rounded-md border border-line px-3 py-1.5 text-sm hover:bg-slate-50">
                Add an endpoint
              </button>
            </div>
            {doc.endpoints.length === 0 && <p className="mt-3 text-sm text-muted">No endpoints yet. E1 needs at least one: add the paid routes your service answers.</p>}
            <ol className="mt-3 space-y-4">
              {doc.endpoints.map((e, i) => (
                <EndpointEditor
                  key={i}
                  index={i}
                  endpoint={e}
                  jsonText={(f) => json[jsonKey(i, f)] ?? ""}
                  jsonError={(f) => jsonErrors[jsonKey(i, f)]}
                  onJson={(f, text) => setJsonField(i, f, text)}
                  onChange={(patch) => setEp(i, patch)}
                  onPricing={(patch) => setPricing(i, patch)}
                  onRemove={() => removeEndpoint(i)}
                />
              ))}
            </ol>
          </section>

          {listingId && (
            <Section title="Price change note" hint="Changing a payable endpoint's listed price? Say what changed and why. Buyers see the note beside the price change on the endpoint's trust page, and a noted increase does not fail the trust check H2 (price stable).">
              <TextField
                label="Price change note"
                pointer={PRICE_CHANGE_NOTE_POINTER}
                value={priceNote}
                onChange={setPriceNote}
                area
                max={PRICE_CHANGE_NOTE_MAX}
                rule="H2"
                placeholder="From 1 March the price rises to $0.02 per call: the forecasts now use the hourly model."
                hint="Saved only with a save that changes a payable endpoint's atomic amount, asset, network or mode; a note with no price change is refused."
              />
            </Section>
          )}

          <SaveBar published={published} pending={pending} busyIntent={busyIntent} submit={submit} size={{ bytes: docBytes, limit: DOCUMENT_BYTES_LIMIT }} />
        </form>
      </FieldErrors>

      <Estimate estimate={estimate} publishedTotal={publishedTotal} />
    </div>
  );
}
