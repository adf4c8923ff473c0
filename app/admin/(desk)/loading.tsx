export default function Loading() {
  return (
    <div aria-busy="true">
      <p className="sr-only">Loading the moderators&apos; desk…</p>
      <div className="h-8 w-48 animate-pulse rounded bg-slate-200" />
      <div className="mt-6 grid grid-cols-3 gap-2 sm:grid-cols-6">
        {Array.from({ length: 6 }, (_, i) => <div key={i} className="h-16 animate-pulse rounded-lg border border-line bg-white" />)}
      </div>
      <div className="mt-6 h-72 animate-pulse rounded-xl border border-line bg-white" />
    </div>
  );
}
