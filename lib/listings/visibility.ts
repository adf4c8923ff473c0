/**
 * Who sees a listing without signing in, said once (docs/ARCHITECTURE.md "Public visibility"): public
 * is published; listed (called by the relay and the canary, reached by its slug) is published or
 * unlisted; unseen (answered like no listing) is a draft or a tombstone. A tombstone is always
 * archived (CHECK listings_deleted_is_archived), so the state alone decides each, in Prisma and SQL.
 */
import type { Prisma } from "@/lib/generated/prisma/client";

export const PUBLIC_STATE = "published";
export const LISTED_STATES = ["published", "unlisted"] as const;

/** Prisma `where` of a public listing (catalog, search, feeds, sitemap, page, router selection). */
export const PUBLIC_LISTING = { publicationState: PUBLIC_STATE } satisfies Prisma.ListingWhereInput;
/** Prisma `where` of a listed listing. */
export const LISTED_LISTING = { publicationState: { in: [...LISTED_STATES] } } satisfies Prisma.ListingWhereInput;

/** The SQL condition of a public listing on `alias` (a "listings" or "listing_search" row). */
export function publicSql(alias: string): string {
  return `${alias}."publicationState" = '${PUBLIC_STATE}'`;
}

/** The SQL condition of a listed listing on `alias`. */
export function listedSql(alias: string): string {
  return `${alias}."publicationState" IN (${LISTED_STATES.map((s) => `'${s}'`).join(", ")})`;
}

type Row = { publicationState: string; deletedAt?: Date | null };

export const isPublic = (l: Row): boolean => l.publicationState === PUBLIC_STATE && !l.deletedAt;
export const isListed = (l: Row): boolean => (LISTED_STATES as readonly string[]).includes(l.publicationState) && !l.deletedAt;
/** A draft (never in the catalog) or a tombstone: public doors answer it like no listing at all. */
export const isUnseen = (l: Row): boolean => l.publicationState === "draft" || !!l.deletedAt;
