const STATUS: Record<string, [string, string]> = {
  pass: ["pass", "bg-green-50 text-green-800 ring-green-700/30"],
  partial: ["partial", "bg-amber-50 text-amber-900 ring-amber-700/30"],
  fail: ["fail", "bg-red-50 text-red-800 ring-red-700/30"],
  not_observed: ["not observed", "bg-slate-100 text-slate-700 ring-slate-400/40"],
};

export function RuleStatusChip({ status }: { status: string }) {
  const [label, cls] = STATUS[status] ?? [status, "bg-slate-100 text-slate-700 ring-slate-400/40"];
  return <span className={`rounded-full px-2 py-0.5 text-[11px] font-semibold ring-1 ${cls}`}>{label}</span>;
}

const SEVERITY: Record<string, string> = {
  pass: "bg-green-50 text-green-800",
  info: "bg-sky-50 text-sky-900",
  warn: "bg-amber-50 text-amber-900",
  fail: "bg-red-50 text-red-800",
};

export function SeverityChip({ severity }: { severity: string }) {
  return <span className={`rounded px-1.5 py-0.5 text-[11px] font-semibold uppercase ${SEVERITY[severity] ?? "bg-slate-100 text-slate-700"}`}>{severity}</span>;
}
