/**
 * Test fixtures for the badge routes: organisations, listings and readiness results inserted with
 * Prisma into a createTestDatabase() database, and a throw-away keyring. Not imported by product code.
 */
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { loadKeyring, type Keyring } from "@/lib/badges/keys";
import { bandFor } from "@/lib/badges/statement";

let counter = 0;

export interface SeedResult {
  total: number;
  provisional?: boolean;
  /** Defaults to the band of `total`. */
  band?: string;
  createdAt?: Date;
}

export interface SeededListing {
  id: string;
  slug: string;
  resultIds: string[];
}

/**
 * A listing with `results` in order (oldest first); `current` is the index of the published pointer
 * (default: the last non-provisional result; null for none).
 */
export async function seedListing(
  prisma: PrismaClient,
  opts: { slug?: string; published?: boolean; state?: "draft" | "published" | "unlisted" | "archived"; results?: SeedResult[]; current?: number | null } = {},
): Promise<SeededListing> {
  const n = ++counter;
  const slug = opts.slug ?? `badge-listing-${n}-${process.pid}`;
  const org = await prisma.organization.create({ data: { slug: `badge-org-${n}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`, name: `Org ${n}` } });
  const state = opts.state ?? (opts.published === false ? "draft" : "published");
  const listing = await prisma.listing.create({
    data: { slug, organizationId: org.id, title: `Listing ${n}`, baseUrl: "https://api.example.com", publicationState: state, publishedAt: state === "published" ? new Date() : null },
  });
  const resultIds: string[] = [];
  const results = opts.results ?? [];
  for (const [i, r] of results.entries()) resultIds.push(await addResult(prisma, listing.id, { createdAt: new Date(Date.now() - (results.length - i) * 60_000), ...r }));
  let current = opts.current;
  if (current === undefined) {
    const last = results.map((r, i) => (r.provisional ? -1 : i)).filter((i) => i >= 0).pop();
    current = last ?? null;
  }
  if (current !== null) await setCurrent(prisma, listing.id, resultIds[current]);
  return { id: listing.id, slug, resultIds };
}

export async function addResult(prisma: PrismaClient, listingId: string, r: SeedResult): Promise<string> {
  const row = await prisma.readinessResult.create({
    data: {
      listingId,
      rubricVersion: "readiness/1.0.0",
      total: r.total,
      rawTotal: r.total,
      band: r.band ?? bandFor(r.total),
      provisional: r.provisional ?? false,
      caps: [],
      dimensions: [],
      rules: [],
      improvements: [],
      document: {},
      ...(r.createdAt ? { createdAt: r.createdAt } : {}),
    },
  });
  return row.id;
}

export async function setCurrent(prisma: PrismaClient, listingId: string, resultId: string | null): Promise<void> {
  await prisma.listing.update({ where: { id: listingId }, data: { currentResultId: resultId } });
}

export async function revoke(prisma: PrismaClient, resultId: string, reason = "test"): Promise<void> {
  await prisma.resultRevocation.create({ data: { resultId, reason, actorId: "moderator-test" } });
}

/** A fresh file keyring in a temp folder whose key became valid at `notBefore` (default: a day ago). */
export async function tempKeyring(notBefore = new Date(Date.now() - 86_400_000)): Promise<Keyring> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "tollgate-badge-keys-"));
  const loaded = await loadKeyring({ env: {}, dataDir, now: notBefore });
  if (!loaded.ok) throw new Error(loaded.error.message);
  return loaded.keyring;
}

/** Call a [listing] route handler the way Next does. */
export function ctx<T extends Record<string, string>>(params: T): { params: Promise<T> } {
  return { params: Promise.resolve(params) };
}
