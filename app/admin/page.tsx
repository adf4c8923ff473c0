import type { Metadata } from "next";
import { forbidden, redirect } from "next/navigation";
import { ReadinessChip } from "@/components/readiness-chip";
import { sessionUserId } from "@/lib/auth/session";
import { adminOverview } from "@/lib/catalog/admin";
import { isAppError } from "@/lib/errors";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Moderation" };

export default async function AdminPage() {
  const uid = await sessionUserId();
  if (!uid) redirect("/signin?callbackUrl=/admin");
  let data: Awaited<ReturnType<typeof adminOverview>>;
  try {
    data = await adminOverview(uid);
  } catch (e) {
    if (isAppError(e) && (e.code === "forbidden" || e.code === "unauthorized")) forbidden();
    throw e;
  }
  const states = ["deferred", "queued", "running", "succeeded", "failed"];
  return (
    <div>
      <h1 className="text-2xl font-semibold tracking-tight">Moderation</h1>
      <section aria-labelledby="queue-h" className="mt-6">
        <h2 id="queue-h" className="text-lg font-semibold">Analysis queue</h2>
        <dl className="mt-3 grid grid-cols-2 gap-3 sm:grid-cols-5">
          {states.map((s) => (
            <div key={s} className="rounded-lg border border-line bg-white p-3">
              <dt className="text-xs uppercase tracking-wide text-muted">{s}</dt>
              <dd className="text-2xl font-semibold tabular-nums">{data.queue[s] ?? 0}</dd>
            </div>
          ))}
        </dl>
      </section>
      <section aria-labelledby="listings-h" className="mt-8">
        <h2 id="listings-h" className="text-lg font-semibold">Listings in browse order</h2>
        <div className="mt-3 overflow-x-auto rounded-xl border border-line bg-white">
          <table className="w-full text-sm">
            <thead className="bg-slate-50 text-left text-xs uppercase tracking-wide text-muted">
              <tr>
                <th className="p-3">Listing</th><th className="p-3">State</th><th className="p-3">Tier</th><th className="p-3">Sort weight</th>
                <th className="p-3">Featured</th><th className="p-3">Verification</th><th className="p-3">Quality</th><th className="p-3">Rank</th><th className="p-3">Readiness</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-line">
              {data.listings.map((l) => (
                <tr key={l.id}>
                  <td className="p-3 font-medium">{l.title}</td>
                  <td className="p-3">{l.publicationState}</td>
                  <td className="p-3 tabular-nums">{l.tier}</td>
                  <td className="p-3 tabular-nums">{l.sortWeight}</td>
                  <td className="p-3 tabular-nums">{l.featuredLevel}</td>
                  <td className="p-3">{l.verificationStatus}</td>
                  <td className="p-3 tabular-nums">{l.qualityScore === null ? "—" : Math.round(l.qualityScore * 100)}</td>
                  <td className="p-3 tabular-nums">{l.rankScore === null ? "—" : Math.round(l.rankScore * 100)}</td>
                  <td className="p-3"><ReadinessChip score={l.currentResult?.total ?? null} band={l.currentResult?.band ?? null} /></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </div>
  );
}
