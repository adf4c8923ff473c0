import type { Metadata } from "next";
import Link from "next/link";
import { sessionUserId } from "@/lib/auth/session";
import { adminAudit } from "@/lib/surfaces/admin";
import { actionLabel, readableDiff } from "@/lib/surfaces/labels";
import { orPageError } from "@/lib/surfaces/guard";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Audit log · Moderation" };

type Props = { searchParams: Promise<{ listing?: string; cursor?: string }> };

export default async function AuditPage({ searchParams }: Props) {
  const sp = await searchParams;
  const uid = await sessionUserId();
  const { rows, nextCursor } = await orPageError(() => adminAudit(uid, { listingId: sp.listing ?? null, cursor: sp.cursor ?? null }), "/admin/audit");
  const qs = (o: Record<string, string | undefined>) => {
    const p = new URLSearchParams(Object.entries(o).filter((e): e is [string, string] => !!e[1]));
    return p.toString() ? `?${p}` : "";
  };
  return (
    <div className="space-y-4">
      <p className="text-sm"><Link href="/admin" className="text-brand underline">← Moderation</Link></p>
      <h1 className="text-2xl font-semibold tracking-tight">Audit log</h1>
      <p className="text-sm text-muted">Every moderation change: who, when, before, after and why. Newest first.{sp.listing && <> Filtered to one listing · <Link href="/admin/audit" className="text-brand underline">show all</Link></>}</p>
      {rows.length === 0 ? (
        <p className="rounded-lg border border-dashed border-line bg-white p-8 text-center text-muted">No moderation changes recorded yet.</p>
      ) : (
        <div className="relative overflow-x-auto rounded-xl border border-line bg-white">
          <table className="w-full min-w-[50rem] text-sm">
            <caption className="sr-only">Moderation changes</caption>
            <thead className="bg-slate-50 text-left text-xs uppercase tracking-wide text-muted">
              <tr><th className="p-2.5">When</th><th className="p-2.5">Who</th><th className="p-2.5">Listing</th><th className="p-2.5">Change</th><th className="p-2.5" colSpan={2}>Before → after</th><th className="p-2.5">Reason</th></tr>
            </thead>
            <tbody className="divide-y divide-line">
              {rows.map((a) => (
                <tr key={a.id} className="align-top">
                  <td className="whitespace-nowrap p-2.5"><time dateTime={a.createdAt.toISOString()}>{a.createdAt.toISOString().slice(0, 19).replace("T", " ")}</time></td>
                  <td className="p-2.5">{a.actor.name} <span className="text-xs text-muted">({a.actor.role})</span></td>
                  <td className="p-2.5">{a.listing ? <Link href={`/admin/listings/${a.listing.id}`} className="text-brand underline">{a.listing.title}</Link> : <span className="text-muted">deleted</span>}</td>
                  <td className="p-2.5">{actionLabel(a.action)}<div className="font-mono text-[11px] text-muted">{a.action}</div></td>
                  <td className="p-2.5 text-xs" colSpan={2}>
                    <ul className="space-y-0.5" aria-label="Before and after">
                      {readableDiff(a.before, a.after).map((l) => (
                        <li key={l.field} className={l.changed ? "" : "text-muted"}>
                          <span className="font-medium">{l.label}</span>:{" "}
                          {l.changed ? (
                            <>
                              <del className="bg-red-50 text-red-900">{l.before}</del> → <ins className="bg-green-50 text-green-900 no-underline">{l.after}</ins>
                            </>
                          ) : (
                            <>{l.after} (unchanged)</>
                          )}
                        </li>
                      ))}
                    </ul>
                  </td>
                  <td className="p-2.5">{a.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {nextCursor && (
        <p><Link href={`/admin/audit${qs({ listing: sp.listing, cursor: nextCursor })}`} className="rounded-md border border-line bg-white px-4 py-2 text-sm hover:bg-slate-50">Older changes</Link></p>
      )}
    </div>
  );
}
