"use client";
/** The six dimensions, earned against max (recharts). A table with the same numbers sits beside it for screen readers. */
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";

export function DimensionChart({ data }: { data: Array<{ title: string; earned: number; max: number }> }) {
  const rows = data.map((d) => ({ name: d.title, earned: Math.round(d.earned * 100) / 100, missing: Math.round((d.max - d.earned) * 100) / 100 }));
  return (
    <div className="h-64 w-full" aria-hidden>
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={rows} margin={{ top: 8, right: 8, bottom: 8, left: -16 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="#e2e8f0" vertical={false} />
          <XAxis dataKey="name" tick={{ fontSize: 11, fill: "#334155" }} interval={0} />
          <YAxis tick={{ fontSize: 11, fill: "#334155" }} allowDecimals={false} />
          <Tooltip />
          <Legend wrapperStyle={{ fontSize: 12 }} />
          <Bar dataKey="earned" name="Earned" stackId="a" fill="#4338ca" />
          <Bar dataKey="missing" name="Not earned" stackId="a" fill="#cbd5e1" />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
