import { HealthCharts } from "@/components/charts/health-chart";
import { CopyableCode } from "@/components/copy-button";
import { Monogram } from "@/components/monogram";
import { EndpointPrice } from "@/components/price-display";
import { ReadinessChip } from "@/components/readiness-chip";
import { endpointKey } from "@/lib/catalog/listing-page";
import { networkName, timeAgo } from "@/lib/format";
import { bandLabel } from "@/lib/surfaces/band";
import type { ListingPageView } from "@/lib/surfaces/catalog";

type Listing = ListingPageView["listing"];
type Facts = ListingPageView["facts"];
type Readiness = NonNullable<Listing["readiness"]>;

export function ListingHeader({ listing }: { listing: Listing }) {
  return (
    <>
      <header className="flex items-start gap-4">
        <Monogram title={listing.title} logoUrl={listing.logoUrl} size={56} />
        <div className="min-w-0">
          <h1 className="break-words text-2xl font-semibold tracking-tight">{listing.title}</h1>
          <p className="text-sm text-muted">
            {listing.category ?? "Uncategorised"} · by {listing.seller}
            {listing.demo && <span className="ml-2 rounded bg-slate-100 px-1.5 py-0.5 text-[10px] font-medium uppercase text-slate-600">demo data</span>}
          </p>
        </div>
      </header>
      {listing.shortDescription && <p className="mt-4 text-lg text-slate-800">{listing.shortDescription}</p>}
      {listing.description && <p className="mt-3 whitespace-pre-line text-sm leading-6 text-slate-700">{listing.description}</p>}
    </>
  );
}

export function HealthSection({ health, now }: { health: Facts["health"]; now: Date }) {
  return (
    <section aria-labelledby="health-h" className="mt-8 rounded-xl border border-line bg-white p-4">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h2 id="health-h" className="text-lg font-semibold">Health</h2>
        <p className="text-sm text-muted">
          {health.lastProbe ? (
            <>
              Last probed <time dateTime={health.lastProbe.at} title={health.lastProbe.at}>{timeAgo(health.lastProbe.at, now)}</time>:{" "}
              <span className={health.lastProbe.outcome === "up" ? "font-medium text-green-800" : "font-medium text-red-800"}>{health.lastProbe.outcome}</span>
              {health.lastProbe.latencyMs !== null && <>, {health.lastProbe.latencyMs} ms</>}
            </>
          ) : (
            "Not probed yet"
          )}
        </p>
      </div>
      {health.samples > 0 ? (
        <>
          <p className="mt-1 text-sm" data-testid="uptime">
            <span className="font-semibold tabular-nums">{health.uptimePct} %</span> uptime over the last 30 days ({health.samples} probe{health.samples === 1 ? "" : "s"} by the catalog&apos;s monitor).
          </p>
          <div className="mt-3">
            <HealthCharts data={health.buckets} granularity={health.granularity} />
          </div>
        </>
      ) : (
        <p className="mt-1 text-sm text-muted">The catalog&apos;s monitor has no samples of this listing in the last 30 days yet.</p>
      )}
    </section>
  );
}

export function EndpointList({ listing, quotes, now }: { listing: Listing; quotes: Facts["quotes"]; now: Date }) {
  return (
    <>
      <h2 className="mt-8 text-lg font-semibold">Endpoints</h2>
      {listing.endpoints.length === 0 && <p className="text-sm text-muted">This listing publishes no endpoints yet.</p>}
      <ul className="mt-3 space-y-4">
        {listing.endpoints.map((e) => (
          <li key={`${e.method} ${e.path}`} className="rounded-lg border border-line bg-white p-4">
            <div className="flex flex-wrap items-center gap-2">
              <span className="rounded bg-slate-900 px-2 py-0.5 font-mono text-xs font-semibold text-white">{e.method}</span>
              <code className="break-all font-mono text-sm">{e.path}</code>
              <div className="ml-auto">
                <EndpointPrice endpoint={e} quote={quotes[endpointKey(e.method, e.path)] ?? null} now={now} />
              </div>
            </div>
            {e.description && <p className="mt-2 text-sm text-slate-700">{e.description}</p>}
            <SchemaBlock label="Request" value={e.noParameters ? "No parameters." : e.requestSchema} />
            <SchemaBlock label="Response" value={e.responseSchema} />
            <SchemaBlock label="Example request" value={e.requestExample} />
          </li>
        ))}
      </ul>
    </>
  );
}

export function HowToCall({ calls, demo }: { calls: ListingPageView["calls"]; demo: boolean }) {
  return (
    <section aria-labelledby="call-h" className="mt-8">
      <h2 id="call-h" className="text-lg font-semibold">How to call</h2>
      <p className="mt-1 text-sm text-muted">
        Unpaid, each endpoint answers its 402 with the price it asks. Paid, call it through Tollgate&apos;s router with your API key: the seller&apos;s 402 comes back untouched, your client signs, and the router records the payment.
      </p>
      <p className="mt-2 text-sm text-muted" data-testid="how-to-run">
        To run a paid example: save it as <code>pay.mts</code> in a folder with{" "}
        <code>{calls.some((c) => c.snippets.client.kind === "mppx") ? "npm install mppx viem" : "npm install @x402/fetch @x402/core @x402/evm viem"}</code>, set{" "}
        <code>BUYER_PRIVATE_KEY</code> to a funded wallet&apos;s private key{demo && <> (fund one at the <a className="text-brand underline" href="/faucet">demo faucet</a>)</>} and{" "}
        <code>TOLLGATE_API_KEY</code> to an API key with the <code>router:call</code> scope, then run <code>npx tsx pay.mts</code>.
      </p>
      <ul className="mt-3 space-y-4">
        {calls.map((c) => (
          <li key={c.key} className="min-w-0 rounded-lg border border-line bg-white p-4" data-testid="how-to-call">
            <p className="font-mono text-sm font-semibold break-all">{c.method} {c.path}</p>
            <p className="mt-3 text-xs font-medium text-muted">The unpaid request (answers 402)</p>
            <div className="mt-1"><CopyableCode code={c.snippets.curl} label={`curl for ${c.method} ${c.path}`} /></div>
            <p className="mt-3 text-xs font-medium text-muted">
              Paid, through the router with {c.snippets.client.kind === "mppx" ? <code>mppx</code> : <code>@x402/fetch</code>}
            </p>
            <div className="mt-1"><CopyableCode code={c.snippets.client.code} label={`${c.snippets.client.kind} for ${c.method} ${c.path}`} /></div>
            <p className="mt-2 break-all text-xs text-muted">Router URL: <code>{c.snippets.callUrl}</code></p>
          </li>
        ))}
      </ul>
    </section>
  );
}

export function ReadinessBox({ r }: { r: Listing["readiness"] }) {
  return (
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
  );
}

export function ActivityBox({ activity }: { activity: Facts["activity"] }) {
  return (
    <section aria-labelledby="activity-h" className="rounded-xl border border-line bg-white p-4" data-testid="activity">
      <h2 id="activity-h" className="text-sm font-semibold text-muted">Activity, last 30 days</h2>
      {activity.shown ? (
        <dl className="mt-2 grid grid-cols-2 gap-2 text-sm">
          <div><dt className="text-xs text-muted">Distinct payers</dt><dd className="text-xl font-semibold tabular-nums">{activity.distinctPayers30d}</dd></div>
          <div><dt className="text-xs text-muted">Settled calls</dt><dd className="text-xl font-semibold tabular-nums">{activity.settled30d}</dd></div>
        </dl>
      ) : (
        <p className="mt-2 text-xs text-muted">Fewer than {activity.floor} distinct payers settled through the router in 30 days, so no activity is shown: one wallet, possibly the seller&apos;s own, cannot make a listing look used.</p>
      )}
      <p className="mt-2 text-[11px] text-muted">Payments settled through Tollgate&apos;s router and confirmed on chain; the catalog&apos;s own test payments are not counted.</p>
    </section>
  );
}

export function BadgeBox({ slug, r, badgeReady }: { slug: string; r: Readiness; badgeReady: boolean }) {
  return (
    <section aria-labelledby="badge-h" className="rounded-xl border border-line bg-white p-4">
      <h2 id="badge-h" className="text-sm font-semibold text-muted">Badge</h2>
      {badgeReady ? (
        <>
          {/* eslint-disable-next-line @next/next/no-img-element */}
          <img src={`/badges/${slug}.svg`} alt={`Readiness badge: ${r.score}, ${bandLabel(r.band)}`} className="mt-2 h-5 max-w-full" />
          <p className="mt-2 text-xs text-muted">The seller can show this signed badge; it links back here.</p>
        </>
      ) : (
        <p className="mt-2 text-xs text-muted" data-testid="badge-unavailable">The badge cannot be served right now: this server has no badge signing key configured (BADGE_SIGNING_KEY).</p>
      )}
    </section>
  );
}

export function PaymentBox({ listing }: { listing: Listing }) {
  return (
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
