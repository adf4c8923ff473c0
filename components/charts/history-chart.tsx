"use client";
/** Totals of past published results over time (recharts). The list beside it carries the same data as text. */
import { CartesianGrid, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";

export function HistoryChart({ data }: { data: Array<{ at: string; total: number; rubricVersion: string }> }) {
  const rows = data.map((d) => ({ ...d, label: d.at.slice(0, 16).replace("T", " ") }));
  return (
    <div className="h-56 w-full" aria-hidden>
      <ResponsiveContainer width="100%" height="100%">
        <LineChart data={rows} margin={{ top: 8, right: 12, bottom: 8, left: -16 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="#e2e8f0" />
          <XAxis dataKey="label" tick={{ fontSize: 11, fill: "#334155" }} minTickGap={24} />
          <YAxis domain={[0, 100]} ticks={[0, 20, 40, 60, 80, 100]} tick={{ fontSize: 11, fill: "#334155" }} />
          <ReferenceLine y={60} stroke="#a16207" strokeDasharray="4 4" />
          <ReferenceLine y={90} stroke="#15803d" strokeDasharray="4 4" />
          <Tooltip formatter={(v) => [v, "Readiness"]} />
          <Line type="monotone" dataKey="total" stroke="#4338ca" strokeWidth={2} dot={{ r: 3 }} isAnimationActive={false} />
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}
