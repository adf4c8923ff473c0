"use client";
/** Totals of past published results over time. The list beside it carries the same data as text. */
import { ScoreChart } from "./score-chart";

export function HistoryChart({ data }: { data: Array<{ at: string; total: number; rubricVersion: string }> }) {
  const points = data.map((d) => ({ label: d.at.slice(0, 16).replace("T", " "), value: d.total }));
  // The bands' edges: Ready from 60, Excellent from 90.
  return <ScoreChart points={points} name="Readiness" references={[{ y: 60, colour: "#a16207" }, { y: 90, colour: "#15803d" }]} />;
}
