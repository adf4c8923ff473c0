/**
 * Who sees a listing without signing in (docs/ARCHITECTURE.md "Public visibility"): public, listed (reached by slug)
 * or unseen, decided by the state alone.
 */
import type { Prisma } from "@/lib/generated/prisma/client";

export const PUBLIC_STATE = "published";
export const LISTED_STATES = ["published", "unlisted"] as const;

/** Catalog, search, feeds, sitemap, page, router selection. */
export const PUBLIC_LISTING = { publicationState: PUBLIC_STATE } satisfies Prisma.ListingWhereInput;
export const LISTED_LISTING = { publicationState: { in: [...LISTED_STATES] } } satisfies Prisma.ListingWhereInput;

/** `alias`: a "listings" or "listing_search" row. */
export function publicSql(alias: string): string {
  return `${alias}."publicationState" = '${PUBLIC_STATE}'`;
}

export function listedSql(alias: string): string {
  return `${alias}."publicationState" IN (${LISTED_STATES.map((s) => `'${s}'`).join(", ")})`;
}

type Row = { publicationState: string; deletedAt?: Date | null };

export const isPublic = (l: Row): boolean => l.publicationState === PUBLIC_STATE && !l.deletedAt;
export const isListed = (l: Row): boolean => (LISTED_STATES as readonly string[]).includes(l.publicationState) && !l.deletedAt;
/** Public doors answer it like no listing. */
export const isUnseen = (l: Row): boolean => l.publicationState === "draft" || !!l.deletedAt;
