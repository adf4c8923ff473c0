/** Human words for the moderators' confirmations and audit log; the audit rows keep the field names. */

export const FIELD_LABELS: Record<string, string> = {
  featuredLevel: "Featured level",
  tier: "Tier",
  sortWeight: "Sort weight",
  canarySuspendedAt: "Canary suspended",
  canarySuspended: "Canary suspended",
  verificationStatus: "Verification",
  runId: "Canary run",
  queued: "Run queued",
  publicationState: "Publication",
  canaryPriceApprovedUpTo: "Canary price approved per call (atomic units)",
};

export const ACTION_LABELS: Record<string, string> = {
  "featured.set": "Featured level changed",
  "curation.set": "Curation changed (tier, sort weight)",
  "canary.run": "Canary run started",
  "canary.suspend": "Canary suspended",
  "canary.resume": "Canary resumed",
  "canary.approve_price": "Canary price above the ceiling approved",
};

export const fieldLabel = (key: string) => FIELD_LABELS[key] ?? key.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/^./, (c) => c.toUpperCase());
export const actionLabel = (action: string) => ACTION_LABELS[action] ?? action;

export function valueWords(v: unknown): string {
  if (v === null || v === undefined) return "none";
  if (typeof v === "boolean") return v ? "yes" : "no";
  if (typeof v === "string") return /^\d{4}-\d{2}-\d{2}T/.test(v) ? v.slice(0, 16).replace("T", " ") + " UTC" : v;
  if (typeof v === "number") return String(v);
  return JSON.stringify(v);
}

export interface DiffLine {
  field: string;
  label: string;
  before: string;
  after: string;
  changed: boolean;
}

/** One line per field, changed fields first. */
export function readableDiff(before: unknown, after: unknown): DiffLine[] {
  const obj = (x: unknown): Record<string, unknown> => (x && typeof x === "object" && !Array.isArray(x) ? (x as Record<string, unknown>) : {});
  const b = obj(before);
  const a = obj(after);
  const keys = [...new Set([...Object.keys(b), ...Object.keys(a)])];
  const lines = keys.map((k) => {
    const bw = k in b ? valueWords(b[k]) : "—";
    const aw = k in a ? valueWords(a[k]) : "—";
    return { field: k, label: fieldLabel(k), before: bw, after: aw, changed: bw !== aw };
  });
  return lines.sort((x, y) => Number(y.changed) - Number(x.changed));
}

/** "Featured level 0 → 3, Sort weight 10 → 20". */
export function diffSentence(before: unknown, after: unknown): string {
  const changed = readableDiff(before, after).filter((l) => l.changed);
  if (changed.length === 0) return "nothing changed";
  return changed.map((l) => `${l.label} ${l.before} → ${l.after}`).join(", ");
}
