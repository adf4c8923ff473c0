"use client";
/** Uptime and latency history from the monitor's samples (recharts). The figures beside it say the same in text. */
import { Bar, BarChart, CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";

export interface HealthPoint {
  at: string;
  samples: number;
  uptimePct: number;
  latencyMs: number | null;
}

export function HealthCharts({ data, granularity }: { data: HealthPoint[]; granularity: "hour" | "day" }) {
  const rows = data.map((d) => ({ ...d, label: granularity === "day" ? d.at.slice(5, 10) : d.at.slice(11, 16) }));
  const tick = { fontSize: 11, fill: "#334155" };
  return (
    <div className="grid gap-4 sm:grid-cols-2" aria-hidden>
      <figure className="min-w-0">
        <figcaption className="text-xs font-medium text-muted">Uptime per {granularity} (%)</figcaption>
        <div className="h-40 w-full">
          <ResponsiveContainer width="100%" height="100%">
            <BarChart data={rows} margin={{ top: 8, right: 8, bottom: 0, left: -24 }}>
              <CartesianGrid strokeDasharray="3 3" stroke="#e2e8f0" vertical={false} />
              <XAxis dataKey="label" tick={tick} minTickGap={16} />
              <YAxis domain={[0, 100]} ticks={[0, 50, 100]} tick={tick} />
              <Tooltip formatter={(v) => [`${v} %`, "Uptime"]} />
              <Bar dataKey="uptimePct" fill="#15803d" isAnimationActive={false} />
            </BarChart>
          </ResponsiveContainer>
        </div>
      </figure>
      <figure className="min-w-0">
        <figcaption className="text-xs font-medium text-muted">Median latency per {granularity} (ms)</figcaption>
        <div className="h-40 w-full">
          <ResponsiveContainer width="100%" height="100%">
            <LineChart data={rows} margin={{ top: 8, right: 8, bottom: 0, left: -16 }}>
              <CartesianGrid strokeDasharray="3 3" stroke="#e2e8f0" />
              <XAxis dataKey="label" tick={tick} minTickGap={16} />
              <YAxis tick={tick} />
              <Tooltip formatter={(v) => [`${v} ms`, "Median latency"]} />
              <Line type="monotone" dataKey="latencyMs" stroke="#4338ca" strokeWidth={2} dot={{ r: 2 }} connectNulls isAnimationActive={false} />
            </LineChart>
          </ResponsiveContainer>
        </div>
      </figure>
    </div>
  );
}
