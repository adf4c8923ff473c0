import Link from "next/link";
import { currentActor } from "@/lib/auth/session";
import { isModerator } from "@/lib/auth/roles";

export async function SiteHeader() {
  const actor = await currentActor().catch(() => null);
  return (
    <header className="border-b border-line bg-white">
      <nav aria-label="Main" className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-3 sm:px-6">
        <Link href="/" className="flex items-center gap-2 text-lg font-semibold tracking-tight">
          <span aria-hidden className="inline-flex h-7 w-7 items-center justify-center rounded-md bg-brand text-sm font-bold text-white">402</span>
          Tollgate
        </Link>
        <Link href="/catalog" className="text-sm text-muted hover:text-ink">Catalog</Link>
        {/* Moderators list nothing of their own: their desk is Moderation. */}
        {actor && !isModerator(actor) && <Link href="/dashboard" className="text-sm text-muted hover:text-ink">My listings</Link>}
        {isModerator(actor) && <Link href="/admin" className="text-sm text-muted hover:text-ink">Moderation</Link>}
        {actor?.role === "admin" && <Link href="/admin/api-keys" className="text-sm text-muted hover:text-ink">API keys</Link>}
        <div className="ml-auto flex items-center gap-3 text-sm">
          {actor ? (
            <>
              <span className="text-muted">
                {actor.name} <span className="rounded bg-brand-soft px-1.5 py-0.5 text-xs text-brand">{actor.role}</span>
              </span>
              <Link href="/api/auth/signout" className="rounded-md border border-line px-3 py-1.5 hover:bg-slate-50">Sign out</Link>
            </>
          ) : (
            <Link href="/signin" className="rounded-md bg-brand px-3 py-1.5 font-medium text-white hover:bg-indigo-800">Sign in</Link>
          )}
        </div>
      </nav>
    </header>
  );
}
