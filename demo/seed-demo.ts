/**
 * Demo data, idempotent: every row it writes is marked demo and found again by a stable key (slug,
 * demo login), so a second run changes nothing but what moved (e.g. the fixture sellers' port).
 *
 * - the two seed product documents (002 agent verdict, 003 validity check), imported field by field,
 *   then finished by their sellers (demo/products.ts: title, summary, description, category);
 * - the four services behind the five listing shapes of docs/spec/scoring-system.md "Both scores on real shapes" (the "featured" row is the same service),
 *   with their demo evidence scored into published results. Given the demo market's documents
 *   (demo/market.ts: the same services served live on the local chain), they are listed as served;
 *   their ledger is only ever what buyers pay through the router: nothing here writes one;
 * - the local fixture sellers (npm run sellers), published so the monitor probes them for real;
 * - seeded seller, moderator and admin accounts for the development sign-in.
 */
import fs from "node:fs";
import path from "node:path";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { importProductDocument } from "@/lib/discovery/product-document";
import { validateListingDocument } from "@/lib/listing-document/validate";
import type { ListingDocument } from "@/lib/listing-document/document";
import { writeListing } from "@/lib/listings/save";
import { resultColumns } from "@/lib/analyses/store-result";
import { CURRENT_RUBRIC, checkReadinessEvidence, rubricVersionString } from "@/lib/scoring/readiness";
import { scoreWithAdvice } from "@/lib/scoring/readiness/advice";
import { fixtureListings } from "@/sellers";
import { PRODUCT_SELLERS, withFixtureEdits, withSellerEdits } from "./products";

const FIXTURES = path.join(process.cwd(), "lib", "scoring", "readiness", "fixtures");

export const DEMO_ACCOUNTS = [
  { demoLogin: "seller@demo", name: "Sam Seller", role: "seller" as const, org: "demo-sellers" },
  { demoLogin: "seller2@demo", name: "Ana Other-Seller", role: "seller" as const, org: "arbiter" },
  { demoLogin: "moderator@demo", name: "Mo Moderator", role: "moderator" as const, org: null },
  { demoLogin: "admin@demo", name: "Ada Admin", role: "admin" as const, org: null },
];

const ORGS = [
  { slug: "demo-sellers", name: "Demo Sellers Co." },
  { slug: "arbiter", name: PRODUCT_SELLERS.arbiter },
  { slug: "validity-check", name: PRODUCT_SELLERS["validity-check"] },
];

/**
 * The listing shapes of docs/spec/scoring-system.md "Both scores on real shapes": fixture file and
 * editorial levers (rank-only). Their verification is the canary's (docs/CANARY.md): the demo's
 * server pays each published listing's endpoints and the runs decide it.
 */
export const SHAPES = [
  { key: "mature-and-honest", featuredLevel: 0 },
  { key: "popular-but-thin", featuredLevel: 0 },
  { key: "well-built-brand-new", featuredLevel: 5 },
  { key: "trafficked-but-unpayable", featuredLevel: 5 },
];

/**
 * Fixture sellers listed in the demo catalog: "no-challenge", a broken one a buyer should see flagged.
 * The products (agent verdict, validity check) are listed as their working services publish them, and
 * the MPP geo lookup as the demo market serves it, all paid for real; their 402-only fixture
 * stand-ins stay in `npm run sellers` for the probe and for a seller to submit.
 */
export const DEMO_FIXTURE_SELLERS = ["no-challenge"];

export interface DemoSeedResult {
  listingIdsByShape: Record<string, string>;
  /** The market's listings (shapes and extras) by key: where the router reaches them (/router/call/<slug>/…). */
  marketSlugs: Record<string, string>;
  /** The market's extra listings (demo/market.ts marketExtras) by key. */
  marketListingIds: Record<string, string>;
  fixtureListingIds: Record<string, string>;
  productListingIds: Record<string, string>;
}

export async function seedDemo(
  prisma: PrismaClient,
  opts: {
    sellersOrigin: string;
    /** The shapes as the demo market serves them (by shape key); default: their fixture documents. */
    shapeDocuments?: Record<string, ListingDocument>;
    /** The market's other sellers, as served (by key): listed, published, and probed for real. */
    marketListings?: Record<string, ListingDocument>;
    /** The seed products as their running services publish them ("002", "003"), drafted from their document URLs. */
    productDocuments?: Record<string, ListingDocument>;
    now?: Date;
  },
): Promise<DemoSeedResult> {
  const now = opts.now ?? new Date();
  const orgIds: Record<string, string> = {};
  for (const o of ORGS) {
    const org = await prisma.organization.upsert({ where: { slug: o.slug }, update: { name: o.name }, create: { ...o, demo: true } });
    orgIds[o.slug] = org.id;
  }
  for (const a of DEMO_ACCOUNTS) {
    const data = { name: a.name, role: a.role, organizationId: a.org ? orgIds[a.org] : null, demo: true };
    await prisma.user.upsert({ where: { demoLogin: a.demoLogin }, update: data, create: { ...data, demoLogin: a.demoLogin } });
  }

  const listingIdsByShape: Record<string, string> = {};
  const marketSlugs: Record<string, string> = {};
  for (const shape of SHAPES) {
    const doc = opts.shapeDocuments?.[shape.key] ?? shapeDocument(shape.key);
    const id = await upsertListing(prisma, doc, orgIds["demo-sellers"], `demo:shape:${shape.key}`);
    await prisma.listing.update({
      where: { id },
      data: { featuredLevel: shape.featuredLevel, publicationState: "published", publishedAt: now },
    });
    await publishDemoResult(prisma, id, doc, path.join(FIXTURES, `${shape.key}.evidence.json`), now);
    listingIdsByShape[shape.key] = id;
    marketSlugs[shape.key] = await slugOf(prisma, id);
  }

  const productListingIds: Record<string, string> = {};
  for (const [file, org, sourceUrl] of [
    ["002-agent-verdict.json", "arbiter", undefined],
    ["003-validity-check.json", "validity-check", "https://validity-check.example"],
  ] as const) {
    const key = file.slice(0, 3);
    // As the running service publishes it (drafted from its document URL), else the seed's document as written.
    let listing = opts.productDocuments?.[key];
    if (!listing) {
      const imported = importProductDocument(fs.readFileSync(path.join(FIXTURES, "seed-products", file), "utf8"), sourceUrl ? { sourceUrl } : {});
      if (!imported.ok) throw new Error(`seed product ${file} does not import: ${JSON.stringify(imported.errors[0])}`);
      listing = imported.listing;
    }
    // The seller's own title, summary and category, written in the editor after the import.
    const id = await upsertListing(prisma, withSellerEdits(key, listing), orgIds[org], `seed:${key}`);
    // Published; the monitor probes the running service (or, without one, it reads "not yet scored").
    await prisma.listing.update({ where: { id }, data: { publicationState: "published", publishedAt: now } });
    productListingIds[file] = id;
    if (opts.productDocuments?.[key]) marketSlugs[key] = await slugOf(prisma, id);
  }

  const fixtureListingIds: Record<string, string> = {};
  const fixtures = fixtureListings(opts.sellersOrigin);
  for (const slug of DEMO_FIXTURE_SELLERS) {
    const doc = fixtures[slug];
    if (!doc) throw new Error(`fixture seller ${slug} is unknown`);
    // Listed under a service's name, not the fixture's (demo/products.ts FIXTURE_EDITS).
    const id = await upsertListing(prisma, withFixtureEdits(slug, doc), orgIds["demo-sellers"], `fixture:${slug}`);
    await prisma.listing.update({ where: { id }, data: { publicationState: "published", publishedAt: now } });
    fixtureListingIds[slug] = id;
  }
  // A fixture listing an older demo published and this one no longer lists is archived, not left behind.
  await prisma.listing.updateMany({
    where: { demo: true, source: { startsWith: "fixture:", notIn: DEMO_FIXTURE_SELLERS.map((s) => `fixture:${s}`) }, publicationState: { not: "archived" } },
    data: { publicationState: "archived" },
  });
  const marketListingIds: Record<string, string> = {};
  for (const [key, doc] of Object.entries(opts.marketListings ?? {})) {
    const id = await upsertListing(prisma, doc, orgIds["demo-sellers"], `market:${key}`);
    await prisma.listing.update({ where: { id }, data: { publicationState: "published", publishedAt: now } });
    marketListingIds[key] = id;
    marketSlugs[key] = await slugOf(prisma, id);
  }
  return { listingIdsByShape, marketSlugs, marketListingIds, fixtureListingIds, productListingIds };
}

async function slugOf(prisma: PrismaClient, id: string): Promise<string> {
  return (await prisma.listing.findUniqueOrThrow({ where: { id }, select: { slug: true } })).slug;
}

/** A shape's listing document as written (public URLs, Base USDC): what the demo market localises and serves. */
export function shapeDocument(key: string): ListingDocument {
  return readDocument(path.join(FIXTURES, `${key}.listing.json`));
}

function readDocument(file: string): ListingDocument {
  const v = validateListingDocument(JSON.parse(fs.readFileSync(file, "utf8")));
  if (!v.ok) throw new Error(`${file} is not a valid listing document: ${v.errors[0].pointer} ${v.errors[0].message}`);
  return v.value;
}

/**
 * Create the listing once (found again by its source key); later runs rewrite its document only. One
 * deleted in the demo (a tombstone, kept with its history) is listed anew, under a free slug.
 */
async function upsertListing(prisma: PrismaClient, doc: ListingDocument, organizationId: string, source: string): Promise<string> {
  const existing = await prisma.listing.findFirst({ where: { source, demo: true, deletedAt: null }, select: { id: true } });
  const saved = await writeListing(doc, { organizationId, listingId: existing?.id, source, demo: true });
  return saved.id;
}

/** Score the shape's demo evidence and publish it, unless the same rubric already scored it. */
async function publishDemoResult(prisma: PrismaClient, listingId: string, doc: ListingDocument, evidenceFile: string, now: Date) {
  const listing = await prisma.listing.findUniqueOrThrow({ where: { id: listingId }, select: { currentResult: { select: { rubricVersion: true } } } });
  const version = rubricVersionString(CURRENT_RUBRIC);
  if (listing.currentResult?.rubricVersion === version) return;
  const ev = checkReadinessEvidence(JSON.parse(fs.readFileSync(evidenceFile, "utf8")));
  if (!ev.ok) throw new Error(`${evidenceFile}: ${ev.errors[0].pointer} ${ev.errors[0].message}`);
  // Scored at the instant the fixture was written for, so its ledger windows read as intended.
  const index = JSON.parse(fs.readFileSync(path.join(FIXTURES, "index.json"), "utf8")) as { now: string };
  const result = scoreWithAdvice(doc, ev.value, CURRENT_RUBRIC, { now: new Date(index.now) });
  await prisma.$transaction(async (tx) => {
    const evidence = await tx.probeEvidence.create({
      data: { listingId, vantage: "demo", probedAt: new Date(ev.value.probe.probedAt), ok: true, evidence: ev.value as never },
    });
    const row = await tx.readinessResult.create({ data: { ...resultColumns(result, doc), listingId, evidenceId: evidence.id, createdAt: now } });
    await tx.listing.update({ where: { id: listingId }, data: { currentResultId: row.id } });
  });
}

/**
 * Queue an analysis for every fixture-seller and market-extra listing without a published result, so the in-process
 * catalog-monitor probes them for real as soon as the server starts. Idempotent: an analysis already
 * active for a listing is reused, not duplicated.
 */
export async function queueDemoAnalyses(prisma: PrismaClient, seeded: DemoSeedResult): Promise<string[]> {
  const { onListingPublished } = await import("@/lib/queue/enqueue-analysis");
  const queued: string[] = [];
  const products = Object.entries(seeded.productListingIds).filter(([file]) => seeded.marketSlugs[file.slice(0, 3)]).map(([, id]) => id);
  for (const id of [...Object.values(seeded.fixtureListingIds), ...Object.values(seeded.marketListingIds), ...products]) {
    const l = await prisma.listing.findUniqueOrThrow({ where: { id }, select: { currentResultId: true } });
    if (l.currentResultId) continue;
    queued.push((await onListingPublished(id, "system:demo-seed")).id);
  }
  return queued;
}
