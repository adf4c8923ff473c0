export default function Loading() {
  return (
    <div aria-busy="true" aria-live="polite">
      <p className="sr-only">Loading the catalog…</p>
      <div className="mb-6 h-8 w-64 animate-pulse rounded bg-slate-200" />
      <ul className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
        {Array.from({ length: 6 }, (_, i) => (
          <li key={i} className="h-44 animate-pulse rounded-xl border border-line bg-white" />
        ))}
      </ul>
    </div>
  );
}
