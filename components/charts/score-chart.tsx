"use client";
/**
 * A 0–100 score over time (recharts): readiness totals on the seller's report, an endpoint's trust
 * score on its trust page. The page beside it carries the same numbers as text, so the chart is
 * hidden from screen readers.
 */
import { CartesianGrid, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";

export interface ScorePoint {
    label: string;
  /** The score, or null for a point without one (the line breaks there). */
  value: number | null;
  /** Shown after the value in the tooltip ("B", "readiness/1.1.0"). */
  note?: string | null;
}

export function ScoreChart({ points, name, references = [], dotRadius = 3 }: { points: ScorePoint[]; name: string; references?: { y: number; colour: string }[]; dotRadius?: number }) {
  return (
    <div className="h-56 w-full" aria-hidden>
      <ResponsiveContainer width="100%" height="100%">
        <LineChart data={points} margin={{ top: 8, right: 12, bottom: 8, left: -16 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="#e2e8f0" />
          <XAxis dataKey="label" tick={{ fontSize: 11, fill: "#334155" }} minTickGap={24} />
          <YAxis domain={[0, 100]} ticks={[0, 20, 40, 60, 80, 100]} tick={{ fontSize: 11, fill: "#334155" }} />
          {references.map((r) => (
            <ReferenceLine key={r.y} y={r.y} stroke={r.colour} strokeDasharray="4 4" />
          ))}
          <Tooltip formatter={(v, _n, p) => [(p.payload as ScorePoint).note ? `${v} (${(p.payload as ScorePoint).note})` : v, name]} />
          <Line type="monotone" dataKey="value" stroke="#4338ca" strokeWidth={2} dot={{ r: dotRadius }} connectNulls={false} isAnimationActive={false} />
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}
