import Link from "next/link";

export default function NotFound() {
  return (
    <div className="mx-auto max-w-lg rounded-xl border border-line bg-white p-8 text-center">
      <p className="text-sm font-semibold text-muted">404</p>
      <h1 className="mt-2 text-xl font-semibold">Nothing here</h1>
      <p className="mt-2 text-sm text-muted">The listing may be unpublished, or the address mistyped.</p>
      <Link href="/catalog" className="mt-4 inline-block text-sm text-brand underline">Browse the catalog</Link>
    </div>
  );
}
