/**
 * `npm run bench:commits -- [--writers 8] [--seconds 5]` (TEST_DATABASE_URL: a server PostgreSQL):
 * do concurrent listing commits queue on a shared row? Each writer commits transactions on its own
 * listing for --seconds; 1 writer, then --writers, per kind of write (docs/BENCHMARKS.md "bench:commits").
 * A writer that scales shares nothing; one whose --writers figure stays near its 1-writer figure queues.
 */
import os from "node:os";
import { intFlag } from "./args";
import { openDatabase, type DatabaseHandle } from "@/lib/db";
import { createTestDatabase } from "@/test/db";
import { createTestListing } from "@/test/ledger";
import { printLoadAverage } from "./machine";

const argv = process.argv.slice(2);
const WRITERS = intFlag(argv, "--writers", 8, 2);
const SECONDS = intFlag(argv, "--seconds", 5, 1);
/** In-transaction work after the write (a save's further statements, a sweep's observations): one round trip sleeping this long. */
const WORK_MS = 2;

type Statement = [sql: string, params: unknown[]];

interface Kind {
  name: string;
  what: string;
  /** The transaction's writes on listing `id`. */
  write: (id: string) => Statement[];
}

const sample = (id: string): Statement => [`INSERT INTO "monitor_health_samples" ("id", "listingId", "at", "outcome", "confidence", "vantage") VALUES (md5(random()::text), $1, now() AT TIME ZONE 'UTC', 'up', 1, 'bench')`, [id]];

const KINDS: Kind[] = [
  {
    name: "sweep",
    what: "a health sample and a new rank score: the listing's own tag only",
    write: (id) => [sample(id), [`UPDATE "listing_ranks" SET "rankScore" = random() WHERE "listingId" = $1`, [id]]],
  },
  {
    name: "sweep+catalog",
    what: "the same moving the shared `catalog` tag too, as a rank score did before migration 20261208030000",
    write: (id) => [sample(id), [`UPDATE "listing_ranks" SET "sortWeight" = "sortWeight" + 1 WHERE "listingId" = $1`, [id]]],
  },
  {
    name: "edit",
    what: "a seller's edit of a non-searchable column: `catalog` and the listing's tag",
    write: (id) => [[`UPDATE "listings" SET "baseUrl" = 'https://api.example.com/' || md5(random()::text) WHERE "id" = $1`, [id]]],
  },
  {
    name: "edit-search",
    what: "a seller's edit of the title: the same, plus the listing_search copy and its one stats row",
    write: (id) => [[`UPDATE "listings" SET "title" = 'Bench listing ' || md5(random()::text) WHERE "id" = $1`, [id]]],
  },
];

async function drive(h: DatabaseHandle, kind: Kind, ids: string[], writers: number): Promise<number> {
  const deadline = performance.now() + SECONDS * 1000;
  const counts = await Promise.all(
    Array.from({ length: writers }, (_, i) =>
      h.session(async (s) => {
        let n = 0;
        while (performance.now() < deadline) {
          await s.exec("BEGIN");
          for (const [sql, params] of kind.write(ids[i])) await s.query(sql, params);
          await s.query(`SELECT pg_sleep(${WORK_MS / 1000})`);
          await s.exec("COMMIT");
          n++;
        }
        return n;
      }),
    ),
  );
  return counts.reduce((a, b) => a + b, 0) / SECONDS;
}

async function main() {
  const t = await createTestDatabase({ register: false });
  if (!t.url) throw new Error("bench:commits needs a server PostgreSQL: set TEST_DATABASE_URL (PGlite is one connection: nothing can queue)");
  const h = await openDatabase({ url: t.url, schema: t.schema!, poolSize: WRITERS });
  try {
    const ids: string[] = [];
    for (let i = 0; i < WRITERS; i++) ids.push(await createTestListing(t.prisma));
    console.log(`bench:commits  ${WRITERS} writers, ${SECONDS} s each, ${WORK_MS} ms of work in each transaction after its write; PostgreSQL on ${new URL(t.url).host}, ${os.availableParallelism()} CPUs`);
    console.log("kind | 1 writer tx/s | N writers tx/s | scaling");
    const results: Record<string, number> = {};
    for (const kind of KINDS) {
      const one = await drive(h, kind, ids, 1);
      const many = await drive(h, kind, ids, WRITERS);
      results[kind.name] = many / one;
      console.log(`${kind.name} | ${one.toFixed(0)} | ${many.toFixed(0)} | ${(many / one).toFixed(2)}×   (${kind.what})`);
    }
    printLoadAverage();
    for (const [k, v] of Object.entries(results)) console.log(`RESULT commits_scaling_${k.replace(/[^a-z]+/g, "_")} ${v.toFixed(2)} x`);
  } finally {
    await h.close();
    await t.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
