/** Test builders for the analysis pipeline: organizations, users and listings written straight to the database. */
import crypto from "node:crypto";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import type { ListingDocument } from "@/lib/listing-document/document";
import { endpointColumns, listingColumns } from "@/lib/listings/document-mapping";
import { fullListing } from "@/test/readiness";

export const TEST_WORKER_TOKEN = "test-worker-token-0123456789abcdef";

export async function seedOwner(prisma: PrismaClient, role: "seller" | "moderator" | "admin" = "seller") {
  const tag = crypto.randomBytes(4).toString("hex");
  const org = await prisma.organization.create({ data: { slug: `org-${tag}`, name: `Org ${tag}` } });
  const user = await prisma.user.create({ data: { name: `User ${tag}`, role, organizationId: org.id } });
  return { org, user };
}

export async function seedListing(prisma: PrismaClient, organizationId: string, over: Partial<ListingDocument> = {}): Promise<string> {
  const doc = fullListing(over);
  const tag = crypto.randomBytes(5).toString("hex");
  const l = await prisma.listing.create({
    data: { ...listingColumns(doc), slug: `${doc.slug ?? "l"}-${tag}`, organizationId, publicationState: "published" },
    select: { id: true },
  });
  await prisma.endpoint.createMany({ data: doc.endpoints.map((e, i) => ({ ...endpointColumns(e, i), listingId: l.id })) });
  return l.id;
}

/** Many listings fast (one createMany each for listings and endpoints); returns their ids. */
export async function seedListings(prisma: PrismaClient, organizationId: string, n: number, baseUrl = (i: number) => `https://seller-${i}.example.com`): Promise<string[]> {
  const doc = fullListing();
  const tag = crypto.randomBytes(4).toString("hex");
  const ids = Array.from({ length: n }, (_, i) => `lst_${tag}_${i}`);
  for (let start = 0; start < n; start += 1000) {
    const chunk = ids.slice(start, start + 1000);
    await prisma.listing.createMany({
      data: chunk.map((id, k) => ({ ...listingColumns({ ...doc, baseUrl: baseUrl(start + k) }), id, slug: `${id}`, organizationId, publicationState: "published" as const })),
    });
    await prisma.endpoint.createMany({ data: chunk.flatMap((id) => doc.endpoints.map((e, i) => ({ ...endpointColumns(e, i), listingId: id }))) });
  }
  return ids;
}
