export default function Loading() {
  return (
    <div aria-busy="true">
      <p className="sr-only">Loading the readiness report…</p>
      <div className="h-8 w-72 animate-pulse rounded bg-slate-200" />
      <div className="mt-6 h-40 animate-pulse rounded-xl border border-line bg-white" />
      <div className="mt-6 grid gap-6 lg:grid-cols-2">
        <div className="h-72 animate-pulse rounded-xl border border-line bg-white" />
        <div className="h-72 animate-pulse rounded-xl border border-line bg-white" />
      </div>
    </div>
  );
}
