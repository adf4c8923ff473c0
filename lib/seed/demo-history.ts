/**
 * Ledger and monitor histories for the demo listings, so rank has evidence to order by.
 * The seed 004 shapes get histories built to match their rows (lib/ledger/demo-seed.ts).
 */
import type { PrismaClient } from "@/lib/generated/prisma/client";
import type { DemoSeedResult } from "@/lib/seed/demo";

export async function seedDemoHistory(prisma: PrismaClient, seeded: DemoSeedResult, now = new Date()): Promise<void> {
  const ledger = await import("@/lib/ledger/demo-seed").catch(() => null);
  if (!ledger) return; // the ledger module lands with the rank work
  await ledger.seedDemoLedger(prisma, { listingIdsByShape: seeded.listingIdsByShape, now });
}
