import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { Monogram } from "@/components/monogram";
import { ReadinessChip } from "@/components/readiness-chip";
import { getPublishedListing } from "@/lib/catalog/queries";
import { formatUsd, networkName } from "@/lib/format";
import { badgeKeyring } from "@/lib/badges/server";
import { bandLabel } from "@/lib/surfaces/band";
import { EndpointGrades } from "@/components/trust/endpoint-grades";
import { getListingTrust } from "@/lib/catalog/trust";

export const dynamic = "force-dynamic";

type Params = { params: Promise<{ slug: string }> };

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  const listing = await getPublishedListing((await params).slug);
  return { title: listing?.title ?? "Listing not found" };
}

export default async function ListingPage({ params }: Params) {
  const listing = await getPublishedListing((await params).slug);
  if (!listing) notFound();
  const r = listing.readiness;
  // The badge is signed; a server without a signing key cannot serve it, so say so instead of showing a broken image.
  const badgeReady = r ? await badgeKeyring().then(() => true, () => false) : false;
  const trust = await getListingTrust(listing.id);
  return (
    <article className="grid gap-6 lg:grid-cols-[1fr_18rem]">
      <div className="min-w-0">
        <header className="flex items-start gap-4">
          <Monogram title={listing.title} logoUrl={listing.logoUrl} size={56} />
          <div className="min-w-0">
            <h1 className="text-2xl font-semibold tracking-tight">{listing.title}</h1>
            <p className="text-sm text-muted">
              {listing.category ?? "Uncategorised"} · by {listing.seller}
              {listing.demo && <span className="ml-2 rounded bg-slate-100 px-1.5 py-0.5 text-[10px] font-medium uppercase text-slate-600">demo data</span>}
            </p>
          </div>
        </header>
        {listing.shortDescription && <p className="mt-4 text-lg text-slate-800">{listing.shortDescription}</p>}
        {listing.description && <p className="mt-3 whitespace-pre-line text-sm leading-6 text-slate-700">{listing.description}</p>}

        <h2 className="mt-8 text-lg font-semibold">Endpoints</h2>
        {listing.endpoints.length === 0 && <p className="text-sm text-muted">This listing publishes no endpoints yet.</p>}
        <ul className="mt-3 space-y-4">
          {listing.endpoints.map((e) => (
            <li key={`${e.method} ${e.path}`} className="rounded-lg border border-line bg-white p-4">
              <div className="flex flex-wrap items-center gap-2">
                <span className="rounded bg-slate-900 px-2 py-0.5 font-mono text-xs font-semibold text-white">{e.method}</span>
                <code className="break-all font-mono text-sm">{e.path}</code>
                <span className="ml-auto text-sm">
                  {!e.payable ? (
                    <span className="text-muted">free</span>
                  ) : e.priceUsd ? (
                    <span className="font-semibold">{formatUsd(e.priceUsd)}<span className="font-normal text-muted"> /call</span></span>
                  ) : e.dynamicMin ? (
                    <span className="font-semibold">from {formatUsd(e.dynamicMin)}{e.dynamicMax && <> to {formatUsd(e.dynamicMax)}</>}</span>
                  ) : (
                    <span className="text-muted">{e.priceLabel ?? "price not published"}</span>
                  )}
                </span>
              </div>
              {e.description && <p className="mt-2 text-sm text-slate-700">{e.description}</p>}
              {e.payable && e.dynamicMin && e.priceUsd && (
                <p className="mt-1 text-xs text-muted">dynamic: {formatUsd(e.dynamicMin)}{e.dynamicMax && <> to {formatUsd(e.dynamicMax)}</>}{e.dynamicUnit && <> {e.dynamicUnit}</>}</p>
              )}
              {e.priceAmount && e.priceNetwork && (
                <p className="mt-1 text-xs text-muted">
                  {e.priceAmount} atomic units · {networkName(e.priceNetwork)} · {e.priceMode ?? "fixed"}
                </p>
              )}
              <SchemaBlock label="Request" value={e.noParameters ? "No parameters." : e.requestSchema} />
              <SchemaBlock label="Response" value={e.responseSchema} />
              <SchemaBlock label="Example request" value={e.requestExample} />
            </li>
          ))}
        </ul>
        <EndpointGrades slug={listing.slug} endpoints={trust} />
      </div>

      <aside className="space-y-4">
        <section aria-labelledby="readiness-h" className="rounded-xl border border-line bg-white p-4">
          <h2 id="readiness-h" className="text-sm font-semibold text-muted">Readiness</h2>
          <div className="mt-2">
            <ReadinessChip score={r?.score ?? null} band={r?.band ?? null} size="lg" />
          </div>
          {r ? (
            <p className="mt-2 text-xs text-muted">
              Rubric {r.rubricVersion}, analysed <time dateTime={r.analysedAt}>{r.analysedAt.slice(0, 10)}</time>. Readiness measures listing completeness, not the quality of the answers.
            </p>
          ) : (
            <p className="mt-2 text-xs text-muted">The catalog has not published a readiness result for this listing yet.</p>
          )}
        </section>
        {r && (
          <section aria-labelledby="badge-h" className="rounded-xl border border-line bg-white p-4">
            <h2 id="badge-h" className="text-sm font-semibold text-muted">Badge</h2>
            {badgeReady ? (
              <>
                {/* eslint-disable-next-line @next/next/no-img-element */}
                <img src={`/badges/${listing.slug}.svg`} alt={`Readiness badge: ${r.score}, ${bandLabel(r.band)}`} className="mt-2 h-5 max-w-full" />
                <p className="mt-2 text-xs text-muted">The seller can show this signed badge; it links back here.</p>
              </>
            ) : (
              <p className="mt-2 text-xs text-muted" data-testid="badge-unavailable">The badge cannot be served right now: this server has no badge signing key configured (BADGE_SIGNING_KEY).</p>
            )}
          </section>
        )}
        <section className="rounded-xl border border-line bg-white p-4 text-sm">
          <h2 className="text-sm font-semibold text-muted">Payment</h2>
          <p className="mt-2">{listing.protocols.length ? listing.protocols.map((p) => (p === "mpp" ? "MPP" : "x402")).join(" · ") : "Protocol not declared"}</p>
          <p className="mt-1 text-muted">{listing.networks.map(networkName).join(", ") || "Networks not declared"}</p>
          <dl className="mt-3 space-y-1 text-xs">
            <div><dt className="inline text-muted">Base URL </dt><dd className="inline break-all font-mono">{listing.baseUrl}</dd></div>
            {listing.docsUrl && <div><dt className="inline text-muted">Docs </dt><dd className="inline break-all"><a className="text-brand underline" href={listing.docsUrl}>{listing.docsUrl}</a></dd></div>}
            {listing.homepageUrl && <div><dt className="inline text-muted">Homepage </dt><dd className="inline break-all"><a className="text-brand underline" href={listing.homepageUrl}>{listing.homepageUrl}</a></dd></div>}
          </dl>
        </section>
      </aside>
    </article>
  );
}

function SchemaBlock({ label, value }: { label: string; value: unknown }) {
  if (value === null || value === undefined) return null;
  return (
    <details className="mt-3 text-sm">
      <summary className="cursor-pointer text-muted hover:text-ink">{label}</summary>
      <pre className="mt-2 max-h-72 overflow-auto rounded bg-slate-950 p-3 text-xs text-slate-100">{typeof value === "string" ? value : JSON.stringify(value, null, 2)}</pre>
    </details>
  );
}
