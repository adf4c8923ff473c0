/**
 * bench:guard: 1,000 agent calls into the guard's hostile market (test/guard-market.ts, 12 attack and
 * 12 honest sellers settling on anvil), once with plain @x402/fetch and once with the guard: payments
 * and USDC reaching attackers, honest calls that succeed, attestation lookups per endpoint, and the
 * guard's added latency with a cached attestation, measured side by side. `-- --calls N` (default 1000).
 */
import { cpus, loadavg } from "node:os";
import { GuardRefusal, TollgateGuard } from "../clients/guard/src/index.ts";
import { startGuardMarket } from "@/test/guard-market";
import { intFlag, pct } from "./args";

const CALLS = intFlag(process.argv, "--calls", 1000, 24);
const SIDE_BY_SIDE = intFlag(process.argv, "--pairs", 200, 10);
const usdc = (atomic: bigint) => (Number(atomic) / 1e6).toFixed(2);
const f2 = (x: number) => x.toFixed(2);

async function main() {
  const load0 = loadavg()[0];
  const m = await startGuardMarket(`bench guard ${process.pid}`);
  const attackUrls = new Set(m.sellers.filter((s) => s.attack).map((s) => s.url));
  // A fixed sequence of calls: uniform over the 24 sellers (xorshift, seed 402).
  let x = 402;
  const next = () => ((x ^= x << 13), (x ^= x >>> 17), (x ^= x << 5), (x >>> 0) / 2 ** 32);
  const plan = Array.from({ length: CALLS }, () => m.sellers[Math.floor(next() * m.sellers.length)]);

  async function arm(name: string, guarded: boolean) {
    const buyer = await m.buyer(`${name} ${process.pid}`, 200_000_000_000n);
    const guard = new TollgateGuard({ tollgate: m.tollgate });
    const paidAt = new Map<string, number>();
    buyer.client.onAfterPaymentCreation(async ({ paymentRequired }) => {
      const u = paymentRequired.resource?.url ?? "";
      paidAt.set(u, (paidAt.get(u) ?? 0) + 1);
    });
    const pay = guarded ? guard.fetch(buyer.fetch) : buyer.fetch;
    if (guarded) guard.x402(buyer.client);
    const before = await Promise.all(m.attackPayees().map((a) => m.local.balanceOf(a)));
    let honest = 0;
    let honestOk = 0;
    let attackPaid = 0;
    const refusals = new Map<string, number>();
    const t0 = Date.now();
    for (const [i, s] of plan.entries()) {
      if (i > 0 && i % 100 === 0) console.error(`${name}: ${i}/${CALLS} calls`);
      const sentBefore = [...paidAt.values()].reduce((a, b) => a + b, 0);
      let ok = false;
      try {
        const res = await pay(s.url);
        const body = await res.text();
        ok = res.status === 200 && body.includes('"value":42');
      } catch (e) {
        const r = GuardRefusal.from(e);
        if (!r) throw e;
        refusals.set(r.code, (refusals.get(r.code) ?? 0) + 1);
      }
      const sent = [...paidAt.values()].reduce((a, b) => a + b, 0) - sentBefore;
      if (s.attack) attackPaid += sent;
      else {
        honest++;
        if (ok) honestOk++;
      }
    }
    const after = await Promise.all(m.attackPayees().map((a) => m.local.balanceOf(a)));
    const lost = after.reduce((a, b, i) => a + b - before[i], 0n);
    return { name, honest, honestOk, attackPaid, lost, refusals, ms: Date.now() - t0, guard, buyer };
  }

  const plain = await arm("plain", false);
  const guarded = await arm("guarded", true);
  const lookupsPerEndpoint = Math.max(...guarded.guard.stats.lookups.values());

  // Side by side on honest sellers, cached: alternate one plain and one guarded call on the same seller.
  const honestSellers = m.sellers.filter((s) => !s.attack);
  const tPlain: number[] = [];
  const tGuard: number[] = [];
  const guardedPay = guarded.guard.fetch(guarded.buyer.fetch);
  for (let i = 0; i < SIDE_BY_SIDE; i++) {
    const s = honestSellers[i % honestSellers.length];
    for (const [pay, into] of (i % 2 ? [[guardedPay, tGuard], [plain.buyer.fetch, tPlain]] : [[plain.buyer.fetch, tPlain], [guardedPay, tGuard]]) as Array<[typeof fetch, number[]]>) {
      const t = performance.now();
      const r = await pay(s.url);
      await r.text();
      into.push(performance.now() - t);
    }
  }
  // The check itself with a cached attestation (no network), for scale.
  const s0 = honestSellers[0];
  const terms = { url: s0.url, scheme: "exact", network: "eip155:31337", asset: "0x5FbDB2315678afecb367f032d93F642f64180aa3", payTo: s0.payTo, amount: "10000" };
  const tCheck: number[] = [];
  for (let i = 0; i < 5000; i++) {
    const t = performance.now();
    await guarded.guard.assert(terms);
    tCheck.push(performance.now() - t);
  }
  const load1 = loadavg()[0];
  await m.close();

  const attackCalls = plan.filter((s) => attackUrls.has(s.url)).length;
  for (const a of [plain, guarded]) {
    console.log(
      `${a.name.padEnd(8)} calls ${CALLS} (attack ${attackCalls}, honest ${a.honest}); payments reaching attackers ${a.attackPaid}; USDC lost to attackers ${usdc(a.lost)}; honest success ${a.honestOk}/${a.honest} (${f2((100 * a.honestOk) / a.honest)}%); ${a.ms} ms`,
    );
  }
  console.log(`guard refusals: ${[...guarded.refusals].sort().map(([k, v]) => `${k} ${v}`).join(", ")}`);
  console.log(`attestation lookups: ${[...guarded.guard.stats.lookups.values()].reduce((a, b) => a + b, 0)} over ${guarded.guard.stats.lookups.size} endpoints, at most ${lookupsPerEndpoint} per endpoint; key fetches ${guarded.guard.stats.keyFetches}`);
  const p50Plain = pct(tPlain, 50);
  const p50Guard = pct(tGuard, 50);
  console.log(`side by side, ${SIDE_BY_SIDE} honest paid calls each, cached attestation: p50 plain ${f2(p50Plain)} ms, guarded ${f2(p50Guard)} ms, added ${f2(p50Guard - p50Plain)} ms; the check alone p50 ${(pct(tCheck, 50) * 1000).toFixed(1)} µs`);
  console.log(`load average ${load0.toFixed(2)} → ${load1.toFixed(2)} on ${cpus().length} cores`);
  console.log(`RESULT guard_usdc_lost_per_1000_plain ${usdc((plain.lost * 1000n) / BigInt(CALLS))} USDC`);
  console.log(`RESULT guard_attack_payments_guarded ${guarded.attackPaid}`);
  console.log(`RESULT guard_honest_success ${f2((100 * guarded.honestOk) / guarded.honest)} %`);
  console.log(`RESULT guard_lookups_per_endpoint_max ${lookupsPerEndpoint}`);
  console.log(`RESULT guard_added_p50 ${f2(p50Guard - p50Plain)} ms`);
}

void main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
