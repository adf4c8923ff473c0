import { expect, test } from "@playwright/test";

/**
 * docs/spec/scoring-system.md "Who sees what": no public page or keyless feed carries a rank number, quality score, Featured level or provisional score.
 * The trust grade's early reading is public by design and always says "provisional grade" (lib/catalog/trust-words.ts); any other "provisional" is refused.
 */
const FORBIDDEN = [/qualityScore/, /featuredLevel/, /rankScore/, /rankComponents/, /provisional(?! grade)/i];

test("no public page, RSC payload or keyless feed exposes qualityScore, featuredLevel, rankScore or a provisional score", async ({ request }) => {
  const pages = new Set(["/", "/catalog", "/catalog?search=geocoding", "/catalog?search=verdict", "/catalog?protocol=x402", "/catalog?protocol=mpp"]);
  // Every listing page: from every catalog page (following the keyset "Load more" links) and the ARD feed.
  let next: string | null = "/catalog";
  for (let i = 0; next && i < 50; i++) {
    const html = await (await request.get(next)).text();
    for (const m of html.matchAll(/href="(\/listings\/[^"?#]+)"/g)) pages.add(m[1]!);
    next = html.match(/href="(\/catalog\?[^"]*cursor=[^"]*)" rel="next"/)?.[1]?.replace(/&amp;/g, "&") ?? null;
  }
  const ard = await request.get("/ard");
  expect(ard.ok()).toBe(true);
  const feed = (await ard.json()) as { services?: Array<{ slug?: string }> };
  for (const s of feed.services ?? []) if (s.slug) pages.add(`/listings/${s.slug}`);
  const listingPages = [...pages].filter((p) => p.startsWith("/listings/"));
  expect(listingPages.length).toBeGreaterThanOrEqual(6);

  const scanned: string[] = [];
  for (const path of pages) {
    for (const headers of [{}, { RSC: "1" }] as Array<Record<string, string>>) {
      const res = await request.get(path, { headers });
      expect(res.status(), path).toBe(200);
      const body = await res.text();
      for (const word of FORBIDDEN) expect(body, `${path} ${JSON.stringify(headers)} matches ${word}`).not.toMatch(word);
      scanned.push(path);
    }
  }
  for (const path of ["/ai-catalog.json", "/ard", "/ard/search?q=geocoding", "/ard/search?q=price"]) {
    const res = await request.get(path);
    expect(res.status(), path).toBe(200);
    const body = await res.text();
    for (const word of FORBIDDEN) expect(body, `${path} matches ${word}`).not.toMatch(word);
    scanned.push(path);
  }
  // The listing pages do show what is public: score, band, rubric version and analysis date.
  const geocodr = await (await request.get("/catalog?search=geocoding")).text();
  const slug = geocodr.match(/href="\/listings\/([^"]+)"/)![1]!;
  const page = (await (await request.get(`/listings/${slug}`)).text()).replace(/<!-- -->/g, "").replace(/<[^>]+>/g, "");
  expect(page).toMatch(/Readiness 96 of 100, Excellent/);
  expect(page).toMatch(/Rubric readiness\/1\.\d+\.\d+, analysed/);
  test.info().annotations.push({ type: "scanned", description: `${scanned.length} responses` });
});
