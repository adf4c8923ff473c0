/** Public rows of a page of listings in ONE statement, columns read off publicListingSelect (public-rows.test.ts checks them against Prisma's). */
import { unstorableText } from "@/lib/listing-document/unstorable";
import { db } from "@/lib/db";
import { rows } from "@/lib/sql";
import { publicSql } from "@/lib/listings/visibility";
import { ALL_TAG, listingTag, type TagVersions } from "@/lib/catalog/page-cache";
import { publicListingSelect, toPublicListing, type PublicListing, type PublicListingRow } from "@/lib/catalog/public-view";

const quote = (column: string) => `"${column.replace(/"/g, '""')}"`;
const scalars = (select: Record<string, unknown>) => Object.keys(select).filter((k) => select[k] === true);
const jsonObject = (alias: string, columns: string[]) => `json_build_object(${columns.map((c) => `'${c}', ${alias}.${quote(c)}`).join(", ")})`;

const { organization, currentResult, endpoints, ...own } = publicListingSelect;

const rowsSql = (where: string, extra = "") => `SELECT ${scalars(own).map((c) => `l.${quote(c)}`).join(", ")},
       (SELECT ${jsonObject("o", scalars(organization.select))} FROM "organizations" o WHERE o."id" = l."organizationId") AS "organization",
       (SELECT ${jsonObject("r", scalars(currentResult.select))} FROM "catalog_scoring_results" r WHERE r."id" = l."currentResultId") AS "currentResult",
       COALESCE((SELECT json_agg(${jsonObject("e", scalars(endpoints.select))} ORDER BY e."position", e."id")
                   FROM "endpoints" e WHERE e."listingId" = l."id"), '[]'::json) AS "endpoints"${extra}
  FROM "listings" l
 WHERE ${where} AND ${publicSql("l")}`;

const SQL = rowsSql(`l."id" = ANY($1::text[])`);
/** With the version of its page tag, in the same statement (page-cache.ts). */
const BY_SLUG_SQL = rowsSql(`l."slug" = $1`, `,\n       (SELECT v."version"::text FROM "page_versions" v WHERE v."tag" = 'listing:' || l."id") AS "pageVersion",
       (SELECT v."version"::text FROM "page_versions" v WHERE v."tag" = '${ALL_TAG}') AS "allVersion"`);

/** timestamp(3) inside JSON is text without a zone; Prisma reads those columns as UTC. */
function utc(value: unknown): Date {
  if (value instanceof Date) return value;
  const s = String(value);
  return new Date(/(Z|[+-]\d\d:?\d\d)$/.test(s) ? s : `${s}Z`);
}

const fromJson = (r: PublicListingRow): PublicListingRow => ({
  ...r,
  publishedAt: r.publishedAt === null ? null : utc(r.publishedAt),
  currentResult: r.currentResult === null ? null : { ...r.currentResult, createdAt: utc(r.currentResult.createdAt) },
});

/** Public shape and the versions of its `listing:<id>` tag and ALL_TAG ("0" before any), or null. */
export async function publicListingBySlug(slug: string): Promise<{ listing: PublicListing; versions: TagVersions } | null> {
  // No slug holds a NUL or a lone surrogate, and PostgreSQL refuses to compare with one.
  if (unstorableText(slug)) return null;
  const [r] = await rows<PublicListingRow & { pageVersion: string | null; allVersion: string | null }>(await db(), BY_SLUG_SQL, slug);
  if (!r) return null;
  const { pageVersion, allVersion, ...row } = r;
  const listing = toPublicListing(fromJson(row));
  return { listing, versions: { [listingTag(listing.id)]: pageVersion ?? "0", [ALL_TAG]: allVersion ?? "0" } };
}

/** As Prisma's findMany with publicListingSelect returns them (any order). */
export async function publicRowsByIds(ids: readonly string[]): Promise<PublicListingRow[]> {
  if (ids.length === 0) return [];
  const prisma = await db();
  const found = await rows<PublicListingRow>(prisma, SQL, [...ids]);
  return found.map(fromJson);
}

export async function publicListingsByIdsOneStatement(ids: readonly string[]): Promise<PublicListing[]> {
  const byId = new Map((await publicRowsByIds(ids)).map((r) => [r.id, toPublicListing(r)]));
  return ids.map((id) => byId.get(id)).filter((x): x is PublicListing => !!x);
}
