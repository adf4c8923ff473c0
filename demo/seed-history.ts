/**
 * Ledger and monitor histories for the demo listings, so rank has evidence to order by. The seed
 * 004 shapes get histories built to match their rows (demo/seed-ledger-history.ts); every row is demo.
 */
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { seedDemoLedger } from "@/demo/seed-ledger-history";
import type { DemoSeedResult } from "@/demo/seed-demo";

/** The rank fixtures name the shapes in camelCase (matureAndHonest); the readiness ones in kebab-case. */
const camel = (k: string) => k.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

export async function seedDemoHistory(prisma: PrismaClient, seeded: DemoSeedResult, now = new Date()): Promise<void> {
  const listingIdsByShape = Object.fromEntries(Object.entries(seeded.listingIdsByShape).map(([k, id]) => [camel(k), id]));
  await seedDemoLedger(prisma, { listingIdsByShape, now } as Parameters<typeof seedDemoLedger>[1]);
}
