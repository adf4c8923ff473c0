/**
 * The README's "Verify a grade" command, run as written against the demo: the standalone verifier
 * fetches a demo endpoint's attestation, its evidence bundle and the published keys, checks the
 * signature and recomputes the grade (docs/TRUST.md "Verifying a grade").
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { expect, test } from "@playwright/test";
import { waitForRankedCatalog } from "./helpers";

/** Every endpoint id of every published listing, from the listing pages' "details" links. */
async function demoEndpointIds(page: import("@playwright/test").Page, request: import("@playwright/test").APIRequestContext): Promise<string[]> {
  const slugs: string[] = [];
  let url: string | null = "/ai-catalog.json";
  while (url) {
    const body = (await (await request.get(url)).json()) as { items: Array<{ slug: string }>; next: string | null };
    slugs.push(...body.items.map((i) => i.slug));
    url = body.next ? new URL(body.next).pathname + new URL(body.next).search : null;
  }
  const ids: string[] = [];
  for (const slug of slugs) {
    await page.goto(`/listings/${encodeURIComponent(slug)}`);
    const hrefs = await page.getByTestId("endpoint-grade").getByRole("link", { name: "details" }).evaluateAll((as) => as.map((a) => a.getAttribute("href")!));
    ids.push(...hrefs.map((h) => decodeURIComponent(h.split("/").pop()!)));
  }
  return ids;
}

const run = promisify(execFile);

test("the README's verifier command verifies a demo endpoint's signed grade to the digit, and refuses it for another price", async ({ page, request, baseURL }) => {
  test.setTimeout(300_000);
  await waitForRankedCatalog(page);
  await page.goto("/catalog");
  await page.getByRole("link", { name: "Geocodr address geocoding" }).first().click();
  await page.getByTestId("endpoint-grade").first().getByRole("link", { name: "details" }).click();
  await page.waitForURL(/\/trust\/[^/]+$/);
  const endpointId = decodeURIComponent(new URL(page.url()).pathname.split("/").pop()!);

  // The trust sweep grades and signs each endpoint within a minute of its first observations.
  await expect.poll(async () => (await request.get(`/api/endpoints/${endpointId}/attestation`)).status(), { timeout: 180_000, intervals: [5_000] }).toBe(200);
  const { statement } = (await (await request.get(`/api/endpoints/${endpointId}/attestation`)).json()) as { statement: { grade: { verdict: string }; payment: { amount: string } | null } };

  // README: npx tsx verifier/src/cli.ts --from <origin> --endpoint <endpointId>  (exit 0 only when all match)
  const { stdout } = await run("npx", ["tsx", "verifier/src/cli.ts", "--from", baseURL!, "--endpoint", endpointId, "--json"], { timeout: 120_000 });
  const report = JSON.parse(stdout) as { ok: boolean; code: string };
  expect(report).toMatchObject({ ok: true, code: "ok" });

  // About to pay more than the grade was signed for: refused with its exit code, not verified.
  if (statement.payment) {
    const other = String(BigInt(statement.payment.amount) + 1n);
    const refused = await run("npx", ["tsx", "verifier/src/cli.ts", "--from", baseURL!, "--endpoint", endpointId, "--expect-amount", other, "--json"], { timeout: 120_000 }).then(
      () => null,
      (e: { code: number; stdout: string }) => e,
    );
    expect(refused?.code).toBe(23);
    expect(JSON.parse(refused!.stdout)).toMatchObject({ ok: false, code: "endpoint_mismatch" });
  }
});

test("the verifier reproduces the signed grade of every graded endpoint of the demo", async ({ page, request, baseURL }) => {
  test.setTimeout(420_000);
  await waitForRankedCatalog(page);
  const ids = await demoEndpointIds(page, request);
  expect(ids.length).toBeGreaterThanOrEqual(10);
  // Every endpoint with a first observation is graded within a minute; wait until most are.
  const graded = async () => {
    const out: string[] = [];
    for (const id of ids) if ((await request.get(`/api/endpoints/${id}/attestation`)).status() === 200) out.push(id);
    return out;
  };
  await expect.poll(async () => (await graded()).length, { timeout: 240_000, intervals: [30_000] }).toBeGreaterThanOrEqual(Math.ceil(ids.length / 2));
  const failures: string[] = [];
  const checked = await graded();
  const verify = (id: string) =>
    run("npx", ["tsx", "verifier/src/cli.ts", "--from", baseURL!, "--endpoint", id, "--json"], { timeout: 120_000 }).then(
      (o) => JSON.parse(o.stdout) as { ok: boolean; code: string; detail: string },
      (e: { stdout: string }) => JSON.parse(e.stdout) as { ok: boolean; code: string; detail: string },
    );
  for (const id of checked) {
    let r = await verify(id);
    // The routes' per-client limit (docs/LIMITS.md "attestation"): wait out the window once, never count it as a failure of the grade.
    if (r.code === "input" && /429/.test(r.detail)) {
      await new Promise((ok) => setTimeout(ok, 60_000));
      r = await verify(id);
    }
    if (!r.ok) failures.push(`${id}: ${r.code} ${r.detail}`);
  }
  expect(failures, `${checked.length} graded endpoints verified`).toEqual([]);
});
