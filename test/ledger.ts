/**
 * Test helpers for the ledger and catalog tests: minimal listings written straight through Prisma,
 * so a test states exactly the columns it depends on.
 */
import type { PrismaClient, Prisma } from "@/lib/generated/prisma/client";

let counter = 0;

export interface TestListingOptions {
  title?: string;
  shortDescription?: string | null;
  description?: string | null;
  category?: string | null;
  publicationState?: "draft" | "published" | "unlisted" | "archived";
  tier?: number;
  sortWeight?: number;
  rankScore?: number | null;
  qualityScore?: number | null;
  featuredLevel?: number;
  networks?: string[];
  protocols?: string[];
  baseUrl?: string;
  /** Endpoints; default one payable POST /run at $0.01. */
  endpoints?: Array<Partial<Omit<Prisma.EndpointCreateManyInput, "listingId">>>;
  organizationId?: string;
  id?: string;
}

export async function createTestOrganization(prisma: PrismaClient, name = "Test Seller"): Promise<string> {
  counter++;
  const org = await prisma.organization.create({ data: { slug: `org-${process.pid}-${counter}-${Math.random().toString(36).slice(2, 8)}`, name } });
  return org.id;
}

export async function createTestListing(prisma: PrismaClient, opts: TestListingOptions = {}): Promise<string> {
  counter++;
  const organizationId = opts.organizationId ?? (await createTestOrganization(prisma));
  const listing = await prisma.listing.create({
    data: {
      ...(opts.id ? { id: opts.id } : {}),
      slug: `listing-${counter}-${Math.random().toString(36).slice(2, 8)}`,
      organizationId,
      title: opts.title ?? `Test listing ${counter}`,
      shortDescription: opts.shortDescription ?? null,
      description: opts.description ?? null,
      category: opts.category ?? null,
      baseUrl: opts.baseUrl ?? "https://api.example.com",
      protocols: opts.protocols ?? ["x402"],
      networks: opts.networks ?? ["eip155:8453"],
      publicationState: opts.publicationState ?? "published",
      publishedAt: (opts.publicationState ?? "published") === "published" ? new Date("2026-11-01T00:00:00Z") : null,
      tier: opts.tier ?? 2,
      sortWeight: opts.sortWeight ?? 0,
      featuredLevel: opts.featuredLevel ?? 0,
    },
    select: { id: true },
  });
  // The listing's rank row is created with it (a trigger); a test's scores go there.
  if (opts.rankScore != null || opts.qualityScore != null) {
    await prisma.listingRank.update({ where: { listingId: listing.id }, data: { rankScore: opts.rankScore ?? null, qualityScore: opts.qualityScore ?? null } });
  }
  const endpoints = opts.endpoints ?? [{}];
  if (endpoints.length) {
    await prisma.endpoint.createMany({
      data: endpoints.map((e, i) => ({
        method: "POST" as const,
        path: `/run${i || ""}`,
        description: "Runs the thing.",
        payable: true,
        priceUsd: "0.01",
        priceLabel: "$0.01 per call",
        priceAmount: "10000",
        priceAsset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
        priceNetwork: "eip155:8453",
        priceDecimals: 6,
        priceMode: "fixed" as const,
        ...e,
        position: i,
        listingId: listing.id,
      })),
    });
  }
  return listing.id;
}
