/**
 * Ledger and monitor histories for the demo listings, so rank has evidence to order by.
 * The seed 004 shapes get histories built to match their rows (lib/ledger/demo-seed.ts).
 */
import type { PrismaClient } from "@/lib/generated/prisma/client";
import type { DemoSeedResult } from "@/lib/seed/demo";

export async function seedDemoHistory(prisma: PrismaClient, seeded: DemoSeedResult, now = new Date()): Promise<void> {
  const ledger = await import("@/lib/ledger/demo-seed").catch(() => null);
  if (!ledger) return; // the ledger module lands with the rank work
  // The rank fixtures name the shapes in camelCase (matureAndHonest); the readiness ones in kebab-case.
  const camel = (k: string) => k.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
  const listingIdsByShape = Object.fromEntries(Object.entries(seeded.listingIdsByShape).map(([k, id]) => [camel(k), id]));
  await ledger.seedDemoLedger(prisma, { listingIdsByShape, now } as Parameters<typeof ledger.seedDemoLedger>[1]);
}
