export default function Loading() {
  return (
    <div aria-busy="true">
      <p className="sr-only">Loading…</p>
      <div className="h-8 w-56 animate-pulse rounded bg-slate-200" />
      <div className="mt-6 h-64 animate-pulse rounded-xl border border-line bg-white" />
    </div>
  );
}
