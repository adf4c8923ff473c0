import Link from "next/link";

/**
 * The 403 page (forbidden() from any page; Next.js has one for the whole app, without props), so it
 * names who each kind of restricted page is for: the moderators' desk, the admins' API keys, a
 * seller organisation's own listings.
 */
export default function Forbidden() {
  return (
    <div className="mx-auto max-w-lg rounded-xl border border-line bg-white p-8 text-center">
      <p className="text-sm font-semibold text-red-800">403 · Not allowed</p>
      <h1 className="mt-2 text-xl font-semibold">Your account cannot open this page</h1>
      <ul className="mx-auto mt-3 max-w-sm space-y-1 text-left text-sm text-muted">
        <li><strong className="text-ink">API keys</strong> are for admins only.</li>
        <li><strong className="text-ink">Moderation</strong> is for moderators and admins.</li>
        <li><strong className="text-ink">A listing&apos;s seller pages</strong> are for the organisation that lists it.</li>
      </ul>
      <p className="mt-3 text-sm text-muted">If you think your account should have access, ask an admin.</p>
      <Link href="/catalog" className="mt-4 inline-block text-sm text-brand underline">Back to the catalog</Link>
    </div>
  );
}
