/**
 * A seller's page served through the relay is inert in a real browser (docs/ROUTER.md "The relay is
 * an API"). The spec brings its own rig (test/relay-rig.ts, a process of its own): a hostile seller
 * whose pages carry script, the relay's route over loopback HTTP on its own database, and an API key. Chromium
 * downloads the page instead of opening it, and even opened, its script never runs and nothing leaves it.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { expect, test, type Request as PwRequest } from "@playwright/test";

/** The seller's pages the rig serves (test/relay-rig.ts RIG_PAGES): each carries script. */
const PAGES = ["html", "svg", "untyped"];

let rig: ChildProcess;
let origin: string;
let slug: string;
let secret: string;

test.beforeAll(async () => {
  rig = spawn(process.execPath, ["--import", "tsx", "test/relay-rig.ts"], { stdio: ["ignore", "pipe", "inherit"] });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: rig.stdout! }).once("line", resolve);
    rig.once("exit", (code) => reject(new Error(`test/relay-rig.ts exited with ${code}`)));
  });
  ({ origin, slug, secret } = JSON.parse(line));
});
test.afterAll(() => {
  rig?.kill("SIGTERM");
});

const relayUrl = (page: string) => `${origin}/router/call/${slug}/${page}`;

for (const name of PAGES) {
  test(`a ${name} page with script, called through the relay with a key, is downloaded, never opened`, async ({ browser }) => {
    const context = await browser.newContext({ extraHTTPHeaders: { authorization: `Bearer ${secret}` }, acceptDownloads: true });
    const requests: string[] = [];
    context.on("request", (r: PwRequest) => requests.push(r.url()));
    const page = await context.newPage();
    const download = page.waitForEvent("download");
    await page.goto(relayUrl(name)).catch(() => {});
    expect((await download).suggestedFilename()).toBeTruthy();
    expect(requests).toEqual([relayUrl(name)]);
    await context.close();
  });

  test(`a ${name} page with script, even opened as a document, runs nothing and sends nothing`, async ({ browser }) => {
    const context = await browser.newContext({ extraHTTPHeaders: { authorization: `Bearer ${secret}` } });
    const requests: string[] = [];
    context.on("request", (r: PwRequest) => requests.push(r.url()));
    const page = await context.newPage();
    const violations: string[] = [];
    page.on("console", (m) => violations.push(m.text()));
    // The relay's real answer, with only its Content-Disposition taken away: the sandbox CSP and nosniff hold alone.
    let relayed: Record<string, string> = {};
    await page.route(relayUrl(name), async (route) => {
      const answer = await route.fetch();
      relayed = answer.headers();
      const headers = { ...relayed };
      delete headers["content-disposition"];
      // Chromium would sniff an untyped body: give it the type a seller's page would have claimed.
      if (!headers["content-type"]) headers["content-type"] = "text/html";
      await route.fulfill({ response: answer, headers });
    });
    await page.goto(relayUrl(name));
    await page.waitForTimeout(500);
    expect(await page.title()).not.toBe("script ran");
    expect(requests).toEqual([relayUrl(name)]);
    expect(relayed["content-security-policy"]).toBe("sandbox; default-src 'none'");
    expect(relayed["x-content-type-options"]).toBe("nosniff");
    expect(relayed["content-disposition"]).toBe("attachment");
    expect(violations.join("\n")).toMatch(/sandbox|Content Security Policy/i);
    await context.close();
  });
}

test("a browser without a key (cookies only) gets 401 naming the key headers", async ({ browser }) => {
  const context = await browser.newContext();
  await context.addCookies([{ name: "next-auth.session-token", value: "a-session", url: origin }]);
  const page = await context.newPage();
  const res = await page.goto(relayUrl("html"));
  expect(res?.status()).toBe(401);
  expect(await page.locator("body").textContent()).toContain("X-Tollgate-Key");
  await context.close();
});
