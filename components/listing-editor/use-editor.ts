/** The listing editor's state: the document and its JSON texts, the checks run as the seller types, and the save. */
import { useRouter } from "next/navigation";
import { useEffect, useMemo, useRef, useState, useTransition } from "react";
import type { EndpointPricing, ListingDocument, ListingEndpoint } from "@/lib/listing-document/document";
import { scoreWithAdvice, type AdvisedResult } from "@/lib/scoring/readiness/advice";
import { CURRENT_RUBRIC } from "@/lib/scoring/readiness/rubric";
import { checkListingLimits, DOCUMENT_BYTES_LIMIT, formatBytes, utf8Bytes } from "@/lib/listing-document/limits";
import { saveListingAction, validateListingAction, type SaveActionInput } from "@/lib/surfaces/seller-actions";
import { checkPriceChangeNote, PRICE_CHANGE_NOTE_POINTER } from "@/lib/listings/price-change-note";
import { emptyEndpoint, emptyPricing, initialJsonTexts, jsonKey, withoutEndpoint, type Err, type JsonField } from "./model";
import { toastAfterNavigation } from "../toast";

export type Intent = SaveActionInput["intent"];

/** The document, and the endpoint fields edited as JSON text with their parse errors. */
export function useDocument(initial: ListingDocument) {
  const [doc, setDoc] = useState<ListingDocument>(initial);
  const [json, setJson] = useState<Record<string, string>>(() => initialJsonTexts(initial.endpoints));
  const [jsonErrors, setJsonErrors] = useState<Record<string, string>>({});

  const set = <K extends keyof ListingDocument>(k: K, v: ListingDocument[K]) => setDoc((d) => ({ ...d, [k]: v }));
  const setOp = (k: keyof ListingDocument["operations"], v: string | null) => setDoc((d) => ({ ...d, operations: { ...d.operations, [k]: v } }));
  const setEp = (i: number, patch: Partial<ListingEndpoint>) => setDoc((d) => ({ ...d, endpoints: d.endpoints.map((e, j) => (j === i ? { ...e, ...patch } : e)) }));
  const setPricing = (i: number, patch: Partial<EndpointPricing>) =>
    setDoc((d) => ({ ...d, endpoints: d.endpoints.map((e, j) => (j === i ? { ...e, pricing: { ...(e.pricing ?? emptyPricing()), ...patch } } : e)) }));
  const addEndpoint = () => setDoc((d) => ({ ...d, endpoints: [...d.endpoints, emptyEndpoint()] }));

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

  return { doc, json, jsonErrors, set, setOp, setEp, setPricing, addEndpoint, setJsonField, removeEndpoint };
}

/** The schema's limits (in the browser, on every edit), the server's validation (debounced) and the provisional estimate. */
export function useChecks(doc: ListingDocument, priceNote: string | null) {
  const [errors, setErrors] = useState<Err[]>([]);
  const limitErrors = useMemo(() => {
    const note = checkPriceChangeNote(priceNote);
    return [...checkListingLimits(doc), ...(note.ok ? [] : [{ pointer: PRICE_CHANGE_NOTE_POINTER, message: note.message }])];
  }, [doc, priceNote]);
  const tooLarge = limitErrors.some((e) => e.pointer === "");
  const docBytes = useMemo(() => utf8Bytes(JSON.stringify(doc)), [doc]);

  // The very gate the save uses; a document over the body limit is not sent (the limits name what to shorten).
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

  return { errors, setErrors, limitErrors, docBytes, estimate, errFor };
}

interface SaveInput {
  listingId: string | null;
  source: string | null | undefined;
  doc: ListingDocument;
  priceNote: string | null;
  docBytes: number;
  jsonErrors: Record<string, string>;
  limitErrors: Err[];
  setErrors: (errors: Err[]) => void;
}

/** The save: refused before sending while a JSON field or a limit fails; a refusal is shown and the edits stay. */
export function useSave({ listingId, source, doc, priceNote, docBytes, jsonErrors, limitErrors, setErrors }: SaveInput) {
  const router = useRouter();
  const [saveError, setSaveError] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();
  const [busyIntent, setBusyIntent] = useState<Intent | null>(null);
  const summaryRef = useRef<HTMLDivElement>(null);

  function submit(intent: Intent) {
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

  return { submit, saveError, pending, busyIntent, summaryRef };
}
