/** Two listings of one service: the same base URL or the same endpoint set; flagged, never refused. */
import { rows, type PrismaLike } from "@/lib/sql";
import { publicSql } from "@/lib/listings/visibility";

import { OVERLAP_WORDS, type OverlapReason } from "./overlap-words";

export { OVERLAP_WORDS, type OverlapReason };

export interface OverlapCandidate {
  baseUrl: string;
  endpoints: ReadonlyArray<{ method: string; path: string }>;
}

export function normaliseBaseUrl(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url.trim());
  } catch {
    return null;
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return null;
  const host = u.hostname.toLowerCase().replace(/^www\./, "");
  const port = u.port && !((u.protocol === "http:" && u.port === "80") || (u.protocol === "https:" && u.port === "443")) ? `:${u.port}` : "";
  const path = u.pathname.replace(/\/+$/, "");
  return `${host}${port}${path}`;
}

/** Full URLs, so a base path moved into the paths still matches. */
export function endpointSetKey(c: OverlapCandidate): string {
  const base = normaliseBaseUrl(c.baseUrl);
  if (base === null || c.endpoints.length === 0) return "";
  const keys = new Set(c.endpoints.map((e) => `${e.method.toUpperCase()} ${base}/${e.path.replace(/^\/+/, "").replace(/\/+$/, "")}`));
  return [...keys].sort().join("\n");
}

export function overlapReason(a: OverlapCandidate, b: OverlapCandidate): OverlapReason | null {
  const na = normaliseBaseUrl(a.baseUrl);
  if (na !== null && na === normaliseBaseUrl(b.baseUrl)) return "base_url";
  const ka = endpointSetKey(a);
  if (ka !== "" && ka === endpointSetKey(b)) return "endpoints";
  return null;
}

export interface OverlappingListing {
  id: string;
  slug: string;
  title: string;
  organizationId: string;
  organizationName: string;
  publicationState: string;
  reason: OverlapReason;
}

function hostOf(url: string): string | null {
  try {
    return new URL(url.trim()).hostname.toLowerCase().replace(/^www\./, "");
  } catch {
    return null;
  }
}

/** An overlap always shares a host. */
export async function findOverlappingListings(client: PrismaLike, c: OverlapCandidate, opts: { excludeListingId?: string; take?: number } = {}): Promise<OverlappingListing[]> {
  const host = hostOf(c.baseUrl);
  if (host === null) return [];
  const rows = await client.listing.findMany({
    where: {
      baseUrl: { contains: host, mode: "insensitive" },
      publicationState: { not: "archived" },
      ...(opts.excludeListingId ? { id: { not: opts.excludeListingId } } : {}),
    },
    orderBy: { createdAt: "asc" },
    take: 200,
    select: {
      id: true, slug: true, title: true, baseUrl: true, organizationId: true, publicationState: true,
      organization: { select: { name: true } },
      endpoints: { select: { method: true, path: true } },
    },
  });
  const out: OverlappingListing[] = [];
  for (const r of rows) {
    const reason = overlapReason(c, r);
    if (reason === null) continue;
    out.push({ id: r.id, slug: r.slug, title: r.title, organizationId: r.organizationId, organizationName: r.organization.name, publicationState: r.publicationState, reason });
    if (out.length >= (opts.take ?? 20)) break;
  }
  return out;
}

/** Same-organisation overlaps are not flagged. */
export function crossOwnerOverlaps<T extends OverlapCandidate & { id: string; title: string; organizationId: string }>(rows: T[]): Map<string, Array<{ id: string; title: string; reason: OverlapReason }>> {
  const out = new Map<string, Array<{ id: string; title: string; reason: OverlapReason }>>();
  const byBase = new Map<string, T[]>();
  const byEndpoints = new Map<string, T[]>();
  for (const r of rows) {
    const b = normaliseBaseUrl(r.baseUrl);
    if (b !== null) byBase.set(b, [...(byBase.get(b) ?? []), r]);
    const k = endpointSetKey(r);
    if (k !== "") byEndpoints.set(k, [...(byEndpoints.get(k) ?? []), r]);
  }
  const add = (groups: Map<string, T[]>, reason: OverlapReason) => {
    for (const g of groups.values()) {
      if (g.length < 2) continue;
      for (const a of g) {
        for (const b of g) {
          if (a.id === b.id || a.organizationId === b.organizationId) continue;
          const list = out.get(a.id) ?? [];
          if (!list.some((x) => x.id === b.id)) list.push({ id: b.id, title: b.title, reason });
          out.set(a.id, list);
        }
      }
    }
  };
  add(byBase, "base_url");
  add(byEndpoints, "endpoints");
  return out;
}

export interface SameTitleListing {
  id: string;
  slug: string;
  title: string;
  publicationState: string;
  own: boolean;
}

export function titleKey(title: string): string {
  return title.normalize("NFKC").trim().replace(/\s+/g, " ").toLowerCase();
}

export async function findSameTitleListings(client: PrismaLike, organizationId: string, title: string, opts: { excludeIds?: readonly string[] } = {}): Promise<SameTitleListing[]> {
  const key = titleKey(title);
  if (key === "") return [];
  const found = await rows<{ id: string; slug: string; title: string; publicationState: string; organizationId: string }>(
    client,
    `SELECT "id", "slug", "title", "publicationState"::text AS "publicationState", "organizationId" FROM "listings"
      WHERE lower(regexp_replace(btrim("title"), '\\s+', ' ', 'g')) = $1 AND "publicationState" <> 'archived'
        AND ("organizationId" = $2 OR ${publicSql(`"listings"`)})
      ORDER BY ("organizationId" = $2) DESC, "createdAt" LIMIT 10`,
    key,
    organizationId,
  );
  const skip = new Set(opts.excludeIds ?? []);
  return found.filter((r) => !skip.has(r.id) && titleKey(r.title) === key).map((r) => ({ id: r.id, slug: r.slug, title: r.title, publicationState: r.publicationState, own: r.organizationId === organizationId }));
}
