"use client";
/** "Re-analyse": queues an analysis, polls its progress every 700 ms, and refreshes the report once the result is stored. */
import { useMutation, useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { stepOf } from "./analysis-steps";
import { AnalysisProgress, type Progress } from "./analysis-progress";

const TERMINAL = new Set(["succeeded", "failed", "dead"]);

async function json<T>(res: Response): Promise<T> {
  const body = (await res.json().catch(() => null)) as T & { error?: { message?: string; activeAnalysisId?: string | null } };
  if (!res.ok) {
    const err = new Error(body?.error?.message ?? `HTTP ${res.status}`) as Error & { activeAnalysisId?: string | null };
    err.activeAnalysisId = body?.error?.activeAnalysisId ?? null;
    throw err;
  }
  return body;
}

export function ReanalyseButton({ listingId, activeAnalysisId, label = "Re-analyse" }: { listingId: string; activeAnalysisId: string | null; label?: string }) {
  const router = useRouter();
  const [analysisId, setAnalysisId] = useState<string | null>(activeAnalysisId);
  const refreshed = useRef<string | null>(null);

  useEffect(() => setAnalysisId((cur) => activeAnalysisId ?? cur), [activeAnalysisId]);

  const start = useMutation({
    mutationFn: async () => json<{ id: string }>(await fetch(`/api/listings/${encodeURIComponent(listingId)}/reanalyse`, { method: "POST" })),
    onSuccess: (r) => setAnalysisId(r.id),
    onError: (e: Error & { activeAnalysisId?: string | null }) => {
      if (e.activeAnalysisId) setAnalysisId(e.activeAnalysisId);
    },
  });

  const progress = useQuery({
    queryKey: ["analysis", analysisId],
    enabled: !!analysisId,
    queryFn: async () => json<Progress>(await fetch(`/api/analyses/${encodeURIComponent(analysisId!)}`, { cache: "no-store" })),
    refetchInterval: (q) => (q.state.data && TERMINAL.has(q.state.data.state) ? false : 700),
    staleTime: 0,
  });

  const p = progress.data;
  const finished = !!p && TERMINAL.has(p.state);
  useEffect(() => {
    if (p && p.state === "succeeded" && refreshed.current !== p.id) {
      refreshed.current = p.id;
      router.refresh();
    }
  }, [p, router]);

  const running = !!analysisId && !finished;
  const currentStep = stepOf(p);

  return (
    <div className="space-y-2">
      <button
        type="button"
        onClick={() => start.mutate()}
        disabled={running || start.isPending}
        className="rounded-md bg-brand px-4 py-2 text-sm font-medium text-white hover:bg-indigo-800 disabled:opacity-60"
      >
        {running || start.isPending ? "Analysing…" : label}
      </button>
      {start.error && !(start.error as { activeAnalysisId?: string | null }).activeAnalysisId && (
        <p role="alert" className="text-sm text-red-800">
          Could not start the analysis: {start.error.message}
        </p>
      )}
      {analysisId && <AnalysisProgress p={p} finished={finished} currentStep={currentStep} progressError={progress.error as Error | null} />}
    </div>
  );
}
