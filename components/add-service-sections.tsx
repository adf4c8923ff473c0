/** What the draft of "Add a service" shows above the editor: a refusal, each route's checks, duplicates and what the import read. */
import Link from "next/link";
import { OVERLAP_WORDS } from "@/lib/listings/overlap-words";
import type { DraftActionResult } from "@/lib/surfaces/seller-actions";

type Draft = Extract<DraftActionResult, { ok: true }>;
type Refusal = Extract<DraftActionResult, { ok: false }>;

export function DraftRefusal({ result }: { result: Refusal }) {
  return (
    <div role="alert" className="mt-3 rounded-lg border border-red-200 bg-red-50 p-3 text-sm text-red-900">
      <p className="font-medium">
        The URL was not drafted: <code className="rounded bg-white px-1">{result.code}</code>
      </p>
      <p className="mt-1">{result.detail}</p>
      <p className="mt-1">
        <strong>What to do:</strong> {result.advice}
      </p>
    </div>
  );
}

export function RegistrationChecks({ draft }: { draft: Draft }) {
  return (
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
  );
}

export function DuplicateIntake({ existing }: { existing: Draft["existing"] }) {
  return (
    <div role="status" data-testid="duplicate-intake" className="rounded-xl border border-amber-300 bg-amber-50 p-4 text-sm text-amber-950">
      <p className="font-semibold">You already list this service.</p>
      <ul className="mt-1 space-y-1">
        {existing.map((x) => (
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
  );
}

export function TitleClash({ draft }: { draft: Draft }) {
  return (
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
  );
}

export function ImportSources({ draft }: { draft: Draft }) {
  return (
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
  );
}
