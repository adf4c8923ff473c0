export default function Loading() {
  return (
    <div aria-busy="true" className="grid gap-6 lg:grid-cols-[1fr_18rem]">
      <p className="sr-only">Loading the listing…</p>
      <div className="space-y-4">
        <div className="h-14 w-2/3 animate-pulse rounded bg-slate-200" />
        <div className="h-24 animate-pulse rounded bg-slate-100" />
        <div className="h-40 animate-pulse rounded-lg border border-line bg-white" />
      </div>
      <div className="h-48 animate-pulse rounded-xl border border-line bg-white" />
    </div>
  );
}
