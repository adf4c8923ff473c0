import Link from "next/link";

export default function Forbidden() {
  return (
    <div className="mx-auto max-w-lg rounded-xl border border-line bg-white p-8 text-center">
      <p className="text-sm font-semibold text-red-800">403 · Not allowed</p>
      <h1 className="mt-2 text-xl font-semibold">This page is for moderators</h1>
      <p className="mt-2 text-sm text-muted">Your account does not have the moderator or admin role. If you think it should, ask an admin.</p>
      <Link href="/catalog" className="mt-4 inline-block text-sm text-brand underline">Back to the catalog</Link>
    </div>
  );
}
