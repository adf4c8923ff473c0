"use client";
/**
 * "Re-analyse" with live progress: POST /api/listings/:id/reanalyse queues an analysis, then
 * TanStack Query polls GET /api/analyses/:id every 700 ms through queued → probing (endpoint n of m,
 * as the worker reports it) → scoring → stored, and the report is refreshed (router.refresh()) once
 * the result is stored.
 */
import { useMutation, useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { STEPS, stepLabel, stepOf } from "./analysis-steps";

interface Progress {
  id: string;
  state: string;
  step: string;
  attempts: number;
  maxAttempts: number;
  error: string | null;
  resultId: string | null;
  progress?: { done: number; total: number } | null;
}

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
  const stepIndex = STEPS.indexOf(currentStep);

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
      {analysisId && (
        <div role="status" aria-live="polite" className="text-sm">
          <ol className="flex flex-wrap items-center gap-1.5" aria-label="Analysis progress">
            {STEPS.map((s, i) => {
              const done = finished && p?.state === "succeeded" ? true : i < stepIndex;
              const now = !finished && i === stepIndex;
              const failedHere = (p?.state === "failed" || p?.state === "dead") && i === stepIndex;
              return (
                <li
                  key={s}
                  data-step={s}
                  data-status={done ? "done" : now ? "current" : failedHere ? "failed" : "todo"}
                  aria-current={now ? "step" : undefined}
                  className={`rounded-full px-2.5 py-0.5 text-xs font-medium ring-1 ${done ? "bg-green-50 text-green-800 ring-green-700/30" : now ? "animate-pulse bg-indigo-50 text-indigo-900 ring-indigo-700/40" : failedHere ? "bg-red-50 text-red-800 ring-red-700/30" : "bg-white text-slate-600 ring-slate-300"}`}
                >
                  {done ? "✓ " : ""}
                  {now ? stepLabel(s, p) : s}
                </li>
              );
            })}
          </ol>
          {p && (
            <p className="mt-1 text-xs text-muted" data-testid="analysis-state">
              Analysis {p.state}
              {p.state === "succeeded" ? " · result stored" : p.state !== "failed" && ` · ${stepLabel(currentStep, p)}`}
              {p.attempts > 0 && ` · attempt ${p.attempts} of ${p.maxAttempts}`}
            </p>
          )}
          {(p?.state === "failed" || p?.state === "dead") && <p className="mt-1 text-sm text-red-800">The analysis failed: {p.error ?? "no reason recorded"}. Check the service is reachable, then re-analyse.</p>}
          {p?.error && p.state !== "failed" && p.state !== "dead" && <p className="mt-1 text-xs text-amber-900">Last attempt: {p.error} (it will be retried).</p>}
          {progress.error && <p className="mt-1 text-sm text-red-800">Lost track of the analysis: {(progress.error as Error).message}. Reload the page.</p>}
        </div>
      )}
    </div>
  );
}
