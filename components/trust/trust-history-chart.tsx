"use client";
/** An endpoint's trust score at daily points. The table under it carries the same numbers as text. */
import { ScoreChart } from "@/components/charts/score-chart";

export function TrustHistoryChart({ data }: { data: Array<{ at: string; score: number | null; grade: string | null }> }) {
  const points = data.map((d) => ({ label: d.at.slice(5, 10), value: d.score, note: d.grade ?? "–" }));
  return <ScoreChart points={points} name="Trust score" dotRadius={2} />;
}
