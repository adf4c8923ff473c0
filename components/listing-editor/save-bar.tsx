/** The sticky bar under the editor: save and re-analyse / publish, or save without analysing. */
import { formatBytes } from "@/lib/listing-document/limits";
import type { SaveActionInput } from "@/lib/surfaces/seller-actions";

type Intent = SaveActionInput["intent"];

const PRIMARY = "rounded-md bg-brand px-4 py-2 text-sm font-medium text-white hover:bg-indigo-800 disabled:opacity-60";
const SECONDARY = "rounded-md border border-line px-4 py-2 text-sm hover:bg-slate-50 disabled:opacity-60";

export function SaveBar({ published, pending, busyIntent, submit, size }: { published: boolean; pending: boolean; busyIntent: Intent | null; submit: (intent: Intent) => void; size: { bytes: number; limit: number } }) {
  const over = size.bytes > size.limit;
  const button = (intent: Intent, className: string, label: string, busyLabel: string) => (
    <button type="button" disabled={pending} onClick={() => submit(intent)} className={className}>
      {busyIntent === intent ? busyLabel : label}
    </button>
  );
  return (
    <div className="sticky bottom-0 z-10 -mx-4 flex flex-wrap items-center gap-3 border-t border-line bg-white/95 px-4 py-3 backdrop-blur sm:mx-0 sm:rounded-xl sm:border">
      {published ? (
        <>
          {button("reanalyse", PRIMARY, "Save and re-analyse", "Saving…")}
          {button("draft", SECONDARY, "Save without analysing", "Saving…")}
        </>
      ) : (
        <>
          {button("publish", PRIMARY, "Publish and analyse", "Publishing…")}
          {button("draft", SECONDARY, "Save as draft", "Saving…")}
        </>
      )}
      <span className="text-xs text-muted">{published ? "The listing is published; the analysis runs the live probe again." : "Publishing lists it in the catalog and runs the live probe."}</span>
      <span data-testid="document-size" className={`ml-auto text-xs tabular-nums ${over ? "font-semibold text-red-800" : "text-muted"}`}>
        Listing size {formatBytes(size.bytes)} of {formatBytes(size.limit)}
      </span>
    </div>
  );
}
