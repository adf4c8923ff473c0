/**
 * The selection market's history, written by the product's own machinery (docs/BENCHMARKS.md
 * "bench:select"): each seller lists itself through the intake's form door (registerListing's draft,
 * createListingForSeller, publishListing) and the in-process catalog-monitor worker probes and
 * scores it; buyers' and the wash ring's payments go through the router's relay and settle on anvil;
 * the health sweep probes at simulated instants over three days; the canary pays every listing; the
 * rank sweep and the attest sweep store ranks and signed grades. Only the clock is simulated.
 */
import type { Address, PrivateKeyAccount, PublicClient } from "viem";
import { keccak256, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { registerListing } from "@/lib/intake/register-listing";
import { createListingForSeller } from "@/lib/listings/save";
import { publishListing } from "@/lib/listings/publish";
import { runWorker } from "@/lib/catalog-monitor/run-worker";
import { realProbe } from "@/lib/catalog-monitor/probes";
import { opsDirectClient } from "@/lib/ops/handlers";
import { runHealthSweep } from "@/lib/health/sweep-health";
import { runCanary } from "@/lib/canary/runs";
import { runRankSweep } from "@/lib/rank/sweep-ranks";
import { runTrustGradeSweep } from "@/lib/attest/sweep";
import { signerFor } from "@/lib/badges/keys";
import { mapBounded } from "@/lib/probe/bounded";
import { confirmationsSettled } from "@/lib/router/confirm-after-answer";
import type { LocalChain } from "@/devchain/local-chain";
import { fixedKeyring } from "@/test/badges";
import { routerBuyer } from "./buyers";
import { rng, type MarketSpec, type SellerSpec } from "./market";

/** A wallet of the bench, from a public label: local chain only. */
export const benchKey = (label: string) => keccak256(toHex(`tollgate bench:select ${label}`));
export const benchWallet = (label: string): PrivateKeyAccount => privateKeyToAccount(benchKey(label));

/** Each seller's payee: a wash ring seller's is a ring wallet, so the ring pays itself around. */
export function payeeOf(spec: MarketSpec): (s: SellerSpec) => Address {
  const ring = spec.sellers.filter((s) => s.kind === "wash");
  return (s) => (s.kind === "wash" ? ringWallets(spec)[ring.indexOf(s)].address : benchWallet(`payee ${s.slug}`).address);
}

/** The ring's wallets: four per ring seller, the first of each four being a ring seller's payee. */
export function ringWallets(spec: MarketSpec): PrivateKeyAccount[] {
  const n = spec.sellers.filter((s) => s.kind === "wash").length * 4;
  return Array.from({ length: n }, (_, i) => benchWallet(`wash ring ${i}`));
}

export interface Listed {
  listingId: string;
  slug: string;
  seller: SellerSpec;
}

/** The router's URL for a listed seller's one endpoint. */
export const callUrlOf = (routerOrigin: string, l: Pick<Listed, "slug" | "seller">) => `${routerOrigin}/router/call/${encodeURIComponent(l.slug)}/v1/${l.seller.capability}`;

/** The history's span: three days, the monitor's and the canary's. */
const HISTORY_MS = 3 * 24 * 3_600_000;
/** Health sweeps over the span by default: every 30 minutes (the real monitor: 864, every 5 minutes; 24, every 3 hours, left mediocre sellers unread). */
export const DEFAULT_SWEEPS = 144;

export interface HistoryOptions {
  prisma: PrismaClient;
  local: LocalChain;
  spec: MarketSpec;
  sellerUrl: (s: SellerSpec) => string;
  apiKey: string;
  /** Where the router's relay is served (`/router/call/…`). */
  routerOrigin: string;
  log: (line: string) => void;
  /** Payments and canary runs in flight at once. */
  concurrency: number;
  /** Health sweeps of every listing, evenly over the 3 days (DEFAULT_SWEEPS). */
  sweeps?: number;
}

export interface HistoryFigures {
  listed: number;
  intakeMs: number;
  analysesMs: number;
  organicPayments: number;
  washPayments: number;
  paymentsMs: number;
  probeSweeps: number;
  probesMs: number;
  canaryRuns: Record<string, number>;
  canaryMs: number;
  rankMs: number;
  gradesWritten: number;
  attestMs: number;
}

const time = async <T>(f: () => Promise<T>): Promise<[T, number]> => {
  const t = performance.now();
  const v = await f();
  return [v, performance.now() - t];
};

/** Every seller lists itself through the form door and publishes; the monitor worker drafts nothing (the draft was kept) and probes. */
async function listThroughIntake(o: HistoryOptions): Promise<Listed[]> {
  const listed = await mapBounded(o.spec.sellers, 8, async (s) => {
    const org = await o.prisma.organization.create({ data: { slug: `sel-${s.slug}`, name: s.title } });
    const user = await o.prisma.user.create({ data: { name: `${s.title} owner`, role: "seller", organizationId: org.id } });
    const drafted = await registerListing(user.id, { url: o.sellerUrl(s), mode: "review" });
    if (!drafted.ok) throw new Error(`intake of ${s.slug}: ${drafted.code}: ${drafted.detail}`);
    const saved = await createListingForSeller(user.id, drafted.draft, `import:${o.sellerUrl(s)}`);
    await publishListing(user.id, saved.id);
    return { listingId: saved.id, slug: saved.slug, seller: s };
  });
  const controller = new AbortController();
  const pending = async () => o.prisma.analysis.count({ where: { state: { in: ["queued", "running"] } } });
  const worker = runWorker({ ops: opsDirectClient(), probe: realProbe(), concurrency: 8, idlePollMs: 200, signal: controller.signal, log: () => undefined });
  while ((await pending()) > 0) await new Promise((r) => setTimeout(r, 500));
  controller.abort();
  await worker;
  return listed;
}

/** Mint what each wallet will spend (1 USDC a call: far above any honest price here). */
async function fund(local: LocalChain, wallets: Map<string, { wallet: PrivateKeyAccount; calls: number }>) {
  for (const { wallet, calls } of wallets.values()) await local.mint(wallet.address, BigInt(calls) * 1_000_000n);
}

/**
 * The ledger's history: organic buyers (a pool of wallets; each honest seller 0–2 of them, each
 * adversarial one 1–3, as buyers are fooled too), and the wash ring (every ring wallet pays every
 * ring seller whose payee it is not, once), all through the router's relay.
 */
export async function playLedger(o: HistoryOptions, listed: Listed[]): Promise<{ organic: number; wash: number }> {
  const r = rng(o.spec.seed ^ 0x1ed9e5);
  const pool = Array.from({ length: 40 }, (_, i) => benchWallet(`organic buyer ${i}`));
  const calls: Array<{ wallet: PrivateKeyAccount; target: Listed; wash: boolean }> = [];
  for (const l of listed) {
    if (l.seller.kind === "wash") continue;
    const adversarial = l.seller.kind !== "honest" && l.seller.kind !== "mediocre";
    const n = adversarial ? 1 + Math.floor(r() * 3) : Math.floor(r() * 3);
    const start = Math.floor(r() * pool.length);
    for (let k = 0; k < n; k++) calls.push({ wallet: pool[(start + k) % pool.length], target: l, wash: false });
  }
  const ring = ringWallets(o.spec);
  const payee = payeeOf(o.spec);
  for (const l of listed.filter((x) => x.seller.kind === "wash")) for (const w of ring) if (w.address !== payee(l.seller)) calls.push({ wallet: w, target: l, wash: true });
  const byWallet = new Map<string, { wallet: PrivateKeyAccount; calls: number }>();
  for (const c of calls) byWallet.set(c.wallet.address, { wallet: c.wallet, calls: (byWallet.get(c.wallet.address)?.calls ?? 0) + 1 });
  await fund(o.local, byWallet);
  const buyers = new Map([...byWallet.values()].map(({ wallet }) => [wallet.address, routerBuyer(wallet, o.local.publicClient as PublicClient, o.local.usdc, o.apiKey)]));
  // One wallet's calls one at a time (its nonces are its own), wallets side by side.
  const perWallet = [...byWallet.keys()].map((a) => calls.filter((c) => c.wallet.address === a));
  await mapBounded(perWallet, o.concurrency, async (cs) => {
    for (const c of cs) await buyers.get(c.wallet.address)!(callUrlOf(o.routerOrigin, c.target), `history call by ${c.wallet.address.slice(0, 10)}`);
  });
  await confirmationsSettled();
  return { organic: calls.filter((c) => !c.wash).length, wash: calls.filter((c) => c.wash).length };
}

export async function buildHistory(o: HistoryOptions): Promise<{ listed: Listed[]; figures: HistoryFigures }> {
  const [listed, intakeMs] = await time(() => listThroughIntake(o));
  o.log(`  listed ${listed.length} sellers through the intake, analysed by the monitor worker (${(intakeMs / 1000).toFixed(1)} s)`);

  const [ledger, paymentsMs] = await time(() => playLedger(o, listed));
  o.log(`  ledger: ${ledger.organic} organic and ${ledger.wash} wash-ring payments through the router (${(paymentsMs / 1000).toFixed(1)} s)`);

  // Three days of monitor probes at simulated instants, evenly apart (the real sweep runs every 5 minutes: 864).
  const sweeps = o.sweeps ?? DEFAULT_SWEEPS;
  const apartMs = HISTORY_MS / sweeps;
  const [, probesMs] = await time(async () => {
    const start = Date.now() - HISTORY_MS;
    for (let k = 0; k < sweeps; k++) await runHealthSweep({ now: new Date(start + k * apartMs), concurrency: 16 });
  });
  o.log(`  monitor: ${sweeps} health sweeps of every listing at simulated instants over 3 days, ${(apartMs / 60_000).toFixed(0)} minutes apart (${(probesMs / 1000).toFixed(1)} s)`);

  const canaryRuns: Record<string, number> = {};
  const [, canaryMs] = await time(async () => {
    const caps = { day: 10n ** 15n, listing: 10n ** 12n, organization: 10n ** 12n, payTo: 10n ** 12n };
    await mapBounded(listed, Math.min(3, o.concurrency), async (l) => {
      const run = await runCanary(l.listingId, { trigger: "schedule", requestedBy: "system:bench-select" }, { caps });
      const key = `${run.outcome ?? run.state}`;
      canaryRuns[key] = (canaryRuns[key] ?? 0) + 1;
    });
    await confirmationsSettled();
  });
  o.log(`  canary: ${JSON.stringify(canaryRuns)} (${(canaryMs / 1000).toFixed(1)} s)`);

  const [, rankMs] = await time(() => runRankSweep({ mode: "full" }));
  const [grades, attestMs] = await time(() => runTrustGradeSweep({ signer: signerFor(fixedKeyring()), log: o.log }));
  o.log(`  rank sweep (${(rankMs / 1000).toFixed(1)} s); attest sweep: ${grades.written} grades signed and stored (${(attestMs / 1000).toFixed(1)} s)`);
  return {
    listed,
    figures: { listed: listed.length, intakeMs, analysesMs: intakeMs, organicPayments: ledger.organic, washPayments: ledger.wash, paymentsMs, probeSweeps: sweeps, probesMs, canaryRuns, canaryMs, rankMs, gradesWritten: grades.written, attestMs },
  };
}
