"use client";
/** Unpublish and delete on the seller's report, each after a confirmation that says what happens to the results. */
import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { deleteListingAction, unpublishListingAction } from "@/lib/surfaces/seller-actions";
import { toastAfterNavigation, useToast } from "./toast";

export function ListingLifecycle({ listingId, title, published }: { listingId: string; title: string; published: boolean }) {
  const router = useRouter();
  const toast = useToast();
  const [confirm, setConfirm] = useState<"unpublish" | "delete" | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, start] = useTransition();

  const run = (which: "unpublish" | "delete") =>
    start(async () => {
      setError(null);
      const r = which === "unpublish" ? await unpublishListingAction(listingId) : await deleteListingAction(listingId);
      setConfirm(null);
      if (!r.ok) return setError(r.message);
      if (which === "delete") {
        toastAfterNavigation(r.message);
        router.push("/dashboard");
      } else {
        toast(r.message);
      }
      router.refresh();
    });

  return (
    <div className="flex flex-wrap items-center gap-2 text-sm">
      {published && confirm !== "unpublish" && (
        <button type="button" onClick={() => setConfirm("unpublish")} className="rounded-md border border-line bg-white px-3 py-1.5 hover:bg-slate-50">Unpublish</button>
      )}
      {confirm !== "delete" && (
        <button type="button" onClick={() => setConfirm("delete")} className="rounded-md border border-red-300 bg-white px-3 py-1.5 text-red-800 hover:bg-red-50">Delete</button>
      )}
      {confirm && (
        <div role="alertdialog" aria-label={`${confirm === "unpublish" ? "Unpublish" : "Delete"} ${title}`} className="w-full rounded-lg border border-amber-300 bg-amber-50 p-3 text-amber-950">
          <p>
            {confirm === "unpublish"
              ? `Unpublish “${title}”? It leaves the catalog, feeds and router and goes back to draft. Its published results stay as they are; publishing again re-analyses it.`
              : published
                ? `Delete “${title}”? It leaves the catalog and your listings for good and cannot be restored; its history (results, payments, monitor readings) is kept unchanged.`
                : `Delete “${title}”? A draft that was never published and has no history is removed; one that has history leaves your listings for good, its history kept.`}
          </p>
          <div className="mt-2 flex gap-2">
            <button type="button" disabled={pending} onClick={() => run(confirm)} className="rounded-md bg-red-700 px-3 py-1.5 font-medium text-white hover:bg-red-800 disabled:opacity-60">
              {confirm === "unpublish" ? "Yes, unpublish" : "Yes, delete"}
            </button>
            <button type="button" onClick={() => setConfirm(null)} className="rounded-md border border-line bg-white px-3 py-1.5">Cancel</button>
          </div>
        </div>
      )}
      {error && <p role="alert" className="w-full text-red-800">{error}</p>}
    </div>
  );
}
