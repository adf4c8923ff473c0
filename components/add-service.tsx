"use client";
/** "Add a service": paste a URL, the discovery import drafts the listing, the seller reviews it in the editor. */
import { useState, useTransition } from "react";
import { draftFromUrlAction, type DraftActionResult } from "@/lib/surfaces/seller-actions";
import { ListingEditor } from "./listing-editor/editor";
import { DraftRefusal, DuplicateIntake, ImportSources, RegistrationChecks, TitleClash } from "./add-service-sections";

export function AddService() {
  const [url, setUrl] = useState("");
  const [result, setResult] = useState<DraftActionResult | null>(null);
  const [pending, start] = useTransition();
  const draft = result?.ok ? result : null;
  return (
    <div className="space-y-6">
      <form
        className="rounded-xl border border-line bg-white p-4 sm:p-5"
        onSubmit={(e) => {
          e.preventDefault();
          start(async () => setResult(await draftFromUrlAction(url)));
        }}
      >
        <label htmlFor="service-url" className="text-sm font-medium">Your service&apos;s URL</label>
        <div className="mt-1 flex flex-col gap-2 sm:flex-row">
          <input
            id="service-url"
            name="url"
            type="url"
            required
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            placeholder="https://api.example.com"
            className="w-full rounded-md border border-slate-300 px-3 py-2 text-sm"
            aria-describedby="service-url-hint"
          />
          <button type="submit" disabled={pending || !url.trim()} className="shrink-0 rounded-md bg-brand px-4 py-2 text-sm font-medium text-white hover:bg-indigo-800 disabled:opacity-60">
            {pending ? "Reading the service…" : "Draft the listing"}
          </button>
        </div>
        <p id="service-url-hint" className="mt-1 text-xs text-muted">
          The catalog reads /.well-known/x402 and /openapi.json beside it and calls each payable route once without paying, to read its 402. Nothing is saved until you choose to.
        </p>
        {pending && <p className="mt-3 text-sm text-muted" role="status">Reading discovery documents and payment challenges…</p>}
        {result && !result.ok && <DraftRefusal result={result} />}
      </form>

      {draft && draft.checks.length > 0 && <RegistrationChecks draft={draft} />}

      {draft && draft.existing.length > 0 && <DuplicateIntake existing={draft.existing} />}

      {draft && draft.sameTitle.length > 0 && <TitleClash draft={draft} />}

      {draft && (
        <div className="space-y-4">
          <ImportSources draft={draft} />
          <h2 className="text-xl font-semibold">Review the draft</h2>
          <ListingEditor key={draft.url} initial={draft.draft} listingId={null} publicationState={null} source={draft.url} />
        </div>
      )}
    </div>
  );
}
