import { openDatabase, setDatabase } from "./lib/db";
import { publicListingPage } from "./lib/surfaces/public-pages";
import { countStatements } from "./bench/statements";
import { rows } from "./lib/sql";
(async () => {
  const counter = await countStatements();
  const h = await openDatabase({ url: process.env.DBURL!, poolSize: 6 });
  setDatabase(h);
  const slugs = (await rows<{ slug: string }>(h, `SELECT slug FROM listings ORDER BY random() LIMIT 45`)).map((r) => r.slug);
  for (const s of slugs.slice(0, 5)) await publicListingPage(s);
  counter.reset();
  const t = performance.now();
  for (const s of slugs.slice(5)) await publicListingPage(s);
  const N = 40, ms = performance.now() - t;
  console.log(`${(ms / N).toFixed(1)} ms a page; ${(counter.total() / N).toFixed(1)} statements`);
  for (const [k, v] of [...counter.snapshot()].sort((a, b) => b[1].ms - a[1].ms).slice(0, 12)) console.log(`${(v.ms / N).toFixed(2)} ms  ${(v.n / N).toFixed(1)}×  ${k}`);
  await h.close();
})();
