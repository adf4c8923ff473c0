/**
 * npm run bench:root — a day's root for 10,000 endpoints in one sweep, on a real anvil and database
 * (PGlite in memory, or TEST_DATABASE_URL): 10,000 bundle hashes → the tree, the row and its leaves
 * stored, one publish transaction sent through the facilitator's send queue and mined, rootOf read
 * back; then every bundle's inclusion proof built (from the stored leaves) and verified, and 1,000
 * proofs as the route builds them (one per request). Three days, the median reported. Last line: `RESULT daily_root_10k <ms> ms` (publish + all proofs).
 */
import { createHash } from "node:crypto";
import os from "node:os";
import { performance } from "node:perf_hooks";
import { startAnvil } from "@/devchain/anvil";
import { createFacilitator } from "@/lib/chain/facilitator";
import { LOCAL_DEV_KEYS, LOCAL_NETWORK, setupLocalChain } from "@/devchain/local-chain";
import { DAY_MS, dayInclusionProofs, inclusionProof, publishDueRoots } from "@/lib/attest/daily-root";
import { EVIDENCE_ROOTS_ABI, LOCAL_EVIDENCE_ROOTS_ADDRESS } from "@/lib/attest/evidence-roots";
import { buildTree, verifyInclusion } from "@/lib/attest/merkle";
import { createRootChain, ROOTS_CALLER } from "@/lib/attest/root-chain";
import { createTestDatabase } from "@/test/db";

const N = Number(process.argv.find((a) => a.startsWith("--endpoints="))?.slice(12) ?? 10_000);
const ROUNDS = 3;
const ROUTE_SAMPLE = 1_000;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x: number) => x.toFixed(0);

async function main() {
  const t0 = performance.now();
  const [node, db] = await Promise.all([startAnvil(), createTestDatabase()]);
  try {
    const local = await setupLocalChain(node.rpcUrl);
    // The demo's wiring: the facilitator's signer publishes, its sends in the facilitator's queue.
    const facilitator = createFacilitator(node.rpcUrl, LOCAL_DEV_KEYS[9]);
    const chain = createRootChain({ network: LOCAL_NETWORK, contract: LOCAL_EVIDENCE_ROOTS_ADDRESS, rpcUrl: node.rpcUrl, key: LOCAL_DEV_KEYS[9] }, (caller, send) => facilitator.sends.enqueue(caller, send));
    console.log(`setup ${((performance.now() - t0) / 1000).toFixed(1)} s; ${os.cpus().length} cores, Node ${process.version}; database ${db.url ? "server PostgreSQL (TEST_DATABASE_URL)" : "PGlite in memory"}; ${N} bundle hashes a day, ${ROUNDS} days`);

    const rows: { tree: number; publish: number; proofs: number; verify: number; route: number; gas: bigint }[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const day = 20_400 + r * 10;
      const bundles = Array.from({ length: N }, (_, i) => createHash("sha256").update(`day ${day} endpoint ${i}`).digest("hex"));
      let t = performance.now();
      const tree = buildTree(bundles);
      const treeMs = performance.now() - t;

      t = performance.now();
      const run = await publishDueRoots({ chain, dayHashes: async (d) => (d === day ? bundles : []), now: new Date((day + 1) * DAY_MS + 10 * 60_000), client: db });
      const publishMs = performance.now() - t;
      const outcome = run.days.find((d) => d.day === day);
      if (outcome?.outcome !== "published" || outcome.root !== tree.root) throw new Error(`day ${day}: ${JSON.stringify(outcome)}`);
      const onChain = await local.publicClient.readContract({ address: LOCAL_EVIDENCE_ROOTS_ADDRESS, abi: EVIDENCE_ROOTS_ABI, functionName: "rootOf", args: [day] });
      if (onChain !== tree.root) throw new Error(`rootOf(${day}) is ${onChain}, not ${tree.root}`);
      const receipt = await local.publicClient.getTransactionReceipt({ hash: outcome.transaction! });

      t = performance.now();
      const all = await dayInclusionProofs(day, db);
      const proofs = bundles.map((b) => all.get(b)!);
      const proofsMs = performance.now() - t;
      // The route's path: one bundle's proof per request (the day's tree cached after the first).
      t = performance.now();
      for (const b of bundles.slice(0, ROUTE_SAMPLE)) if ((await inclusionProof(b, day, db)).root !== onChain) throw new Error("route proof");
      const routeMs = (performance.now() - t) / ROUTE_SAMPLE;
      t = performance.now();
      for (const p of proofs) if (!verifyInclusion(p.bundleSha256, p.siblings, onChain)) throw new Error(`proof of ${p.bundleSha256} fails`);
      const verifyMs = performance.now() - t;
      rows.push({ tree: treeMs, publish: publishMs, proofs: proofsMs, verify: verifyMs, route: routeMs, gas: receipt.gasUsed });
      console.log(
        `day ${day}: tree ${ms(treeMs)} ms; publish (tree, row + ${N} leaves stored, 1 transaction mined, ${receipt.gasUsed} gas) ${ms(publishMs)} ms; ` +
          `${N} proofs ${ms(proofsMs)} ms (${proofs[0].siblings.length} siblings); verified ${ms(verifyMs)} ms; one proof as the route builds it ${routeMs.toFixed(2)} ms`,
      );
    }
    const sends = facilitator.sends.history().filter((s) => s.caller === ROOTS_CALLER).length;
    if (sends !== ROUNDS) throw new Error(`${sends} sends as ${ROOTS_CALLER} for ${ROUNDS} days`);
    console.log(`sends through the facilitator's queue as ${ROOTS_CALLER}: ${sends} (one per day)`);
    const total = median(rows.map((x) => x.publish + x.proofs));
    console.log(
      `median: tree ${ms(median(rows.map((x) => x.tree)))} ms, publish ${ms(median(rows.map((x) => x.publish)))} ms, proofs ${ms(median(rows.map((x) => x.proofs)))} ms, verify ${ms(median(rows.map((x) => x.verify)))} ms, route proof ${median(rows.map((x) => x.route)).toFixed(2)} ms; load ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")}`,
    );
    console.log(`RESULT daily_root_10k ${ms(total)} ms`);
  } finally {
    await Promise.all([node.stop(), db.close()]);
  }
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
