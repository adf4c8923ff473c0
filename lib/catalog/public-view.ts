/** What the public may see of a listing; every public page and feed goes through here (docs/SURFACES.md "Who sees what"). */
import type { Prisma } from "@/lib/generated/prisma/client";

export const publicListingSelect = {
  id: true,
  slug: true,
  title: true,
  shortDescription: true,
  description: true,
  logoUrl: true,
  category: true,
  homepageUrl: true,
  baseUrl: true,
  docsUrl: true,
  discoveryUrl: true,
  protocols: true,
  networks: true,
  demo: true,
  verificationStatus: true,
  publishedAt: true,
  organization: { select: { name: true, slug: true } },
  currentResult: { select: { id: true, total: true, band: true, rubricVersion: true, createdAt: true, provisional: true, rules: true } },
  endpoints: {
    orderBy: { position: "asc" },
    select: {
      method: true,
      path: true,
      description: true,
      payable: true,
      priceLabel: true,
      priceUsd: true,
      priceAmount: true,
      priceAsset: true,
      priceNetwork: true,
      priceDecimals: true,
      priceMode: true,
      dynamicMin: true,
      dynamicMax: true,
      dynamicUnit: true,
      requestSchema: true,
      noParameters: true,
      responseSchema: true,
      requestExample: true,
    },
  },
} satisfies Prisma.ListingSelect;

export type PublicListingRow = Prisma.ListingGetPayload<{ select: typeof publicListingSelect }>;

export interface PublicReadiness {
  score: number;
  band: string;
  rubricVersion: string;
  analysedAt: string;
}

/** logoUrl only once it loaded. */
export interface PublicListing
  extends Pick<
    PublicListingRow,
    "id" | "slug" | "title" | "shortDescription" | "description" | "logoUrl" | "category" | "homepageUrl" | "docsUrl" | "discoveryUrl" | "baseUrl" | "protocols" | "networks" | "demo" | "endpoints"
  > {
  seller: string;
  /** verified, degraded (failed) or unverified (none yet). */
  verification: PublicListingRow["verificationStatus"];
  readiness: PublicReadiness | null;
  /** Lowest per-call USD price, for tiles and the price filter. */
  fromPriceUsd: string | null;
}

export function toPublicListing(row: PublicListingRow): PublicListing {
  const r = row.currentResult;
  const prices = row.endpoints
    .filter((e) => e.payable)
    .map((e) => e.priceUsd ?? e.dynamicMin)
    .filter((p): p is string => !!p && Number.isFinite(Number(p)))
    .sort((a, b) => Number(a) - Number(b));
  return {
    id: row.id,
    slug: row.slug,
    title: row.title,
    shortDescription: row.shortDescription,
    description: row.description,
    // Only once the monitor saw it load as an image (M4): tiles never show a broken image.
    logoUrl: r && !r.provisional && logoLoaded(r.rules) ? row.logoUrl : null,
    category: row.category,
    homepageUrl: row.homepageUrl,
    docsUrl: row.docsUrl,
    discoveryUrl: row.discoveryUrl,
    baseUrl: row.baseUrl,
    protocols: row.protocols,
    networks: row.networks,
    seller: row.organization.name,
    demo: row.demo,
    verification: row.verificationStatus,
    // A trigger keeps provisional results off the pointer; checked again here.
    readiness: r && !r.provisional ? { score: r.total, band: r.band, rubricVersion: r.rubricVersion, analysedAt: r.createdAt.toISOString() } : null,
    fromPriceUsd: prices[0] ?? null,
    endpoints: row.endpoints,
  };
}

function logoLoaded(rules: unknown): boolean {
  return Array.isArray(rules) && rules.some((x) => (x as { id?: string; status?: string }).id === "M4" && (x as { status?: string }).status === "pass");
}
