"use client";
/** "Add a service": paste a URL, the discovery import drafts the listing, the seller reviews it in the editor. */
import Link from "next/link";
import { useState, useTransition } from "react";
import { OVERLAP_WORDS } from "@/lib/listings/overlap-words";
import { draftFromUrlAction, type DraftActionResult } from "@/lib/surfaces/seller-actions";
import { ListingEditor } from "./listing-editor/editor";

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
        {result && !result.ok && (
          <div role="alert" className="mt-3 rounded-lg border border-red-200 bg-red-50 p-3 text-sm text-red-900">
            <p className="font-medium">
              The URL was not drafted: <code className="rounded bg-white px-1">{result.code}</code>
            </p>
            <p className="mt-1">{result.detail}</p>
            <p className="mt-1">
              <strong>What to do:</strong> {result.advice}
            </p>
          </div>
        )}
      </form>

      {draft && draft.checks.length > 0 && (
        <section data-testid="registration-checks" className="rounded-xl border border-line bg-white p-4 text-sm">
          <h2 className="font-semibold">What the catalog found at each paid route</h2>
          {draft.checks.map((e) => (
            <div key={e.endpoint} className="mt-2">
              <p className="font-mono text-xs">{e.endpoint}</p>
              <ul className="mt-1 grid gap-x-4 sm:grid-cols-2">
                {e.checks.map((c) => (
                  <li key={c.id} className={c.pass ? "text-emerald-800" : "text-red-800"}>
                    {c.pass ? "✓" : "✗"} <code>{c.id}</code>: {c.detail}
                  </li>
                ))}
              </ul>
            </div>
          ))}
          <p className="mt-2 text-xs text-muted">
            Readiness of the draft ({draft.readiness.rubricVersion}, document rules only until the probe runs): {draft.readiness.total}/100,{" "}
            {draft.readiness.rules.filter((r) => r.status === "fail").length} rules failing.
          </p>
        </section>
      )}

      {draft && draft.existing.length > 0 && (
        <div role="status" data-testid="duplicate-intake" className="rounded-xl border border-amber-300 bg-amber-50 p-4 text-sm text-amber-950">
          <p className="font-semibold">You already list this service.</p>
          <ul className="mt-1 space-y-1">
            {draft.existing.map((x) => (
              <li key={x.id} className="flex flex-wrap items-baseline gap-x-2">
                <Link href={`/dashboard/listings/${x.id}`} className="font-medium text-brand underline">
                  Open {x.title}
                </Link>
                <span className="text-xs">
                  ({x.publicationState}, {OVERLAP_WORDS[x.reason]})
                </span>
              </li>
            ))}
          </ul>
          <p className="mt-2 text-xs">
            Edit the existing listing rather than saving a second one: two listings of one service split its history and show buyers two identical tiles. You can still review and save the draft below.
          </p>
        </div>
      )}

      {draft && draft.sameTitle.length > 0 && (
        <div role="status" data-testid="title-clash" className="rounded-xl border border-amber-300 bg-amber-50 p-4 text-sm text-amber-950">
          <p className="font-semibold">Another listing already has the title “{draft.draft.title}”.</p>
          <ul className="mt-1 space-y-1">
            {draft.sameTitle.map((x) => (
              <li key={x.id}>
                <Link href={x.own ? `/dashboard/listings/${x.id}` : `/listings/${x.slug}`} className="font-medium text-brand underline">
                  {x.own ? `Your listing ${x.slug}` : `A published listing, ${x.slug}`}
                </Link>{" "}
                <span className="text-xs">({x.publicationState})</span>
              </li>
            ))}
          </ul>
          <p className="mt-2 text-xs">Buyers would see two tiles of one name. Give this one a title that says how it differs before you save it.</p>
        </div>
      )}

      {draft && (
        <div className="space-y-4">
          <div className="rounded-xl border border-line bg-white p-4 text-sm">
            <h2 className="font-semibold">What the import read</h2>
            <ul className="mt-2 space-y-1">
              {draft.sources.map((s, i) => (
                <li key={`${s.url}-${i}`} className="flex flex-wrap items-baseline gap-2">
                  <span className={`rounded px-1.5 py-0.5 text-xs font-medium ${s.ok ? "bg-green-50 text-green-800" : "bg-slate-100 text-slate-700"}`}>{s.ok ? "read" : "not used"}</span>
                  <span className="font-mono text-xs">{s.kind}</span>
                  <span className="break-all text-xs text-muted">{s.url}</span>
                  {s.status !== null && <span className="text-xs text-muted">HTTP {s.status}</span>}
                  {s.note && <span className="text-xs text-muted">· {s.note}</span>}
                </li>
              ))}
            </ul>
            {draft.warnings.length > 0 && (
              <>
                <h3 className="mt-3 font-semibold">Check these before publishing</h3>
                <ul className="mt-1 list-disc space-y-0.5 pl-5 text-amber-900">
                  {draft.warnings.map((w) => (
                    <li key={w}>{w}</li>
                  ))}
                </ul>
              </>
            )}
          </div>
          <h2 className="text-xl font-semibold">Review the draft</h2>
          <ListingEditor key={draft.url} initial={draft.draft} listingId={null} publicationState={null} source={draft.url} />
        </div>
      )}
    </div>
  );
}
