"use client";
/** An endpoint's trust score at daily points (recharts). The table under it carries the same numbers as text. */
import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";

export function TrustHistoryChart({ data }: { data: Array<{ at: string; score: number | null; grade: string | null }> }) {
  const rows = data.map((d) => ({ ...d, label: d.at.slice(5, 10) }));
  return (
    <div className="h-56 w-full" aria-hidden>
      <ResponsiveContainer width="100%" height="100%">
        <LineChart data={rows} margin={{ top: 8, right: 12, bottom: 8, left: -16 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="#e2e8f0" />
          <XAxis dataKey="label" tick={{ fontSize: 11, fill: "#334155" }} minTickGap={24} />
          <YAxis domain={[0, 100]} ticks={[0, 20, 40, 60, 80, 100]} tick={{ fontSize: 11, fill: "#334155" }} />
          <Tooltip formatter={(v, _n, p) => [`${v} (${(p.payload as { grade: string | null }).grade ?? "–"})`, "Trust score"]} />
          <Line type="monotone" dataKey="score" stroke="#4338ca" strokeWidth={2} dot={{ r: 2 }} connectNulls={false} isAnimationActive={false} />
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}
