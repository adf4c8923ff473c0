/** Shields.io endpoint badges (docs/DISCOVERY.md "Shields"): grade and 30-day uptime; unpublished answers grey. */
import { readLatestGrades } from "@/lib/attest/read";
import { clientOr, rows, type Client } from "@/lib/sql";
import { publicSql } from "@/lib/listings/visibility";

export interface ShieldsBadge {
  schemaVersion: 1;
  label: string;
  message: string;
  color: string;
  cacheSeconds: number;
  isError?: boolean;
}

/** Shields' own floor; grades move hourly, uptime every few minutes. */
export const SHIELDS_CACHE_SECONDS = 300;

const GRADE_COLORS: Record<string, string> = { A: "brightgreen", B: "green", C: "yellow", D: "orange", F: "red" };

const badge = (label: string, message: string, color: string, isError = false): ShieldsBadge => ({
  schemaVersion: 1,
  label,
  message,
  color,
  cacheSeconds: SHIELDS_CACHE_SECONDS,
  ...(isError ? { isError: true } : {}),
});

interface EndpointRow {
  listingId: string;
  method: string;
  trustPath: string;
}

async function publicEndpoint(c: Client, endpointId: string): Promise<EndpointRow | null> {
  const [r] = await rows<EndpointRow>(c, `SELECT e."listingId", e."method"::text AS "method", e."trustPath" FROM "endpoints" e JOIN "listings" l ON l."id" = e."listingId" WHERE e."id" = $1 AND ${publicSql("l")}`, endpointId);
  return r ?? null;
}

/** "B · 78–86" by grade; avoid or down in red. */
export async function gradeShield(endpointId: string, client?: Client): Promise<ShieldsBadge> {
  const c = await clientOr(client);
  const e = await publicEndpoint(c, endpointId);
  if (!e) return badge("tollgate grade", "not listed", "lightgrey", true);
  const g = (await readLatestGrades(c, [e.listingId])).find((x) => x.method === e.method && x.path === e.trustPath);
  if (!g) return badge("tollgate grade", "not graded yet", "lightgrey");
  if (g.verdict === "avoid" || g.verdict === "down") return badge("tollgate grade", g.grade ? `${g.grade} · ${g.verdict}` : g.verdict, "red");
  if (g.grade === null || g.score === null) return badge("tollgate grade", "insufficient evidence", "lightgrey");
  const range = g.band ? `${Math.round(g.band.low)}–${Math.round(g.band.high)}` : String(Math.round(g.score));
  const provisional = g.verdict === "insufficient_evidence" ? " (provisional)" : "";
  return badge("tollgate grade", `${g.grade} · ${range}${provisional}`, GRADE_COLORS[g.grade] ?? "lightgrey");
}

export function uptimeColor(pct: number): string {
  if (pct >= 99) return "brightgreen";
  if (pct >= 97) return "green";
  if (pct >= 95) return "yellowgreen";
  if (pct >= 90) return "yellow";
  if (pct >= 80) return "orange";
  return "red";
}

/** Share of the last 30 days' monitor samples that found it up. */
export async function uptimeShield(endpointId: string, client?: Client, now = new Date()): Promise<ShieldsBadge> {
  const c = await clientOr(client);
  const e = await publicEndpoint(c, endpointId);
  if (!e) return badge("uptime", "not listed", "lightgrey", true);
  const since = new Date(now.getTime() - 30 * 86_400_000).toISOString().replace("Z", "");
  const [s] = await rows<{ n: number; up: number }>(
    c,
    `SELECT count(*)::int AS n, count(*) FILTER (WHERE h."outcome" = 'up')::int AS up FROM "monitor_health_samples" h
      WHERE h."listingId" = $1 AND h."at" > $2::timestamp AND h."at" > coalesce((SELECT l."monitoredSince" FROM "listings" l WHERE l."id" = $1), '-infinity'::timestamp)`,
    e.listingId,
    since,
  );
  if (!s || s.n === 0) return badge("uptime", "no samples yet", "lightgrey");
  const pct = (100 * s.up) / s.n;
  const shown = pct === 100 ? "100" : pct >= 99.95 ? "99.9" : pct.toFixed(pct >= 10 ? 1 : 2);
  return badge("uptime", `${shown}% (30d)`, uptimeColor(pct));
}
