/**
 * The site's security headers on the production server (docs/LIMITS.md "Security headers"): every
 * page and route found under app/ is requested, anonymous and signed in, and each answer is checked
 * (a page: a per-request script nonce that every script carries, no 'unsafe-inline' script,
 * frame-ancestors 'none'; a route: the API policy; all: nosniff and the referrer policy). Then a
 * few pages in Chromium hydrate and sign in under the policy with no CSP violation in the console.
 */
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { expect, test, type APIRequestContext, type APIResponse, type Page } from "@playwright/test";
import { signInAs } from "./helpers";

const APP = path.join(process.cwd(), "app");
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

interface Found {
  kind: "page" | "route";
  /** The route as its folders spell it: /listings/[slug]. */
  pattern: string;
  methods: string[];
}

/** Every page.tsx and route.ts under app/, with the methods a route exports. */
function walkApp(dir = APP): Found[] {
  const out: Found[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...walkApp(p));
    else if (entry.name === "page.tsx" || entry.name === "route.ts") {
      const pattern = "/" + path.relative(APP, dir).split(path.sep).filter((s) => s && !/^\(.*\)$/.test(s)).join("/");
      const source = fs.readFileSync(p, "utf8");
      const methods = entry.name === "page.tsx" ? ["GET"] : METHODS.filter((m) => new RegExp(`export (async function|const) ${m}\\b|as ${m}\\b`).test(source));
      out.push({ kind: entry.name === "page.tsx" ? "page" : "route", pattern: pattern === "/" ? "/" : pattern, methods });
    }
  }
  return out;
}

/** A concrete URL for each dynamic segment (a real listing where one is needed, else an unknown id: its 404 is checked too). */
function concrete(pattern: string, slug: string): string {
  return pattern
    .replace("/badges/[listing]", `/badges/${slug}.svg`)
    .replace("/router/call/[listing]/[...path]", `/router/call/${slug}/anything`)
    .replace("/api/auth/[...nextauth]", "/api/auth/providers")
    .replace("[slug]", slug)
    .replace(/\[endpointId\]|\[id\]/g, "no-such-id");
}

function nonceOf(csp: string): string | null {
  return csp.match(/script-src [^;]*'nonce-([^']+)'/)?.[1] ?? null;
}

async function expectEveryAnswerHeaders(res: APIResponse, what: string) {
  const h = res.headers();
  expect(h["x-content-type-options"], `${what}: nosniff`).toBe("nosniff");
  expect(h["referrer-policy"], `${what}: Referrer-Policy`).toBe("same-origin");
  // The facilitator's handling of malformed payloads is its own work (docs/LIMITS.md): headers only there.
  if (!what.includes("/api/facilitator/")) expect(res.status(), `${what}: not a 5xx`).toBeLessThan(500);
}

async function expectPage(request: APIRequestContext, url: string) {
  const res = await request.get(url, { maxRedirects: 0 });
  await expectEveryAnswerHeaders(res, `page ${url}`);
  const csp = res.headers()["content-security-policy"] ?? "";
  expect(csp, `page ${url}: frame-ancestors`).toContain("frame-ancestors 'none'");
  const scriptSrc = csp.split(";").find((d) => d.trim().startsWith("script-src")) ?? "";
  expect(scriptSrc, `page ${url}: script-src`).not.toContain("'unsafe-inline'");
  const nonce = nonceOf(csp);
  expect(nonce, `page ${url}: a nonce`).toBeTruthy();
  if (res.status() === 200) {
    const html = await res.text();
    const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    expect(scripts.length, `page ${url}: scripts`).toBeGreaterThan(0);
    for (const s of scripts) expect(s, `page ${url}: every script carries the nonce`).toContain(`nonce="${nonce}"`);
  }
  return nonce;
}

async function expectRoute(request: APIRequestContext, method: string, url: string) {
  const res = await request.fetch(url, { method, maxRedirects: 0, timeout: 15_000, headers: method === "GET" || method === "DELETE" ? {} : { "content-type": "application/json" }, data: method === "GET" || method === "DELETE" ? undefined : "{}" });
  const what = `${method} ${url} (${res.status()})`;
  await expectEveryAnswerHeaders(res, what);
  const csp = res.headers()["content-security-policy"];
  if (url.startsWith("/router/call/")) expect(csp, what).toBe("sandbox; default-src 'none'");
  else expect(csp, what).toBe("default-src 'none'; frame-ancestors 'none'");
}

let slug: string;
const found = walkApp();

test.beforeAll(async ({ request }) => {
  const html = await (await request.get("/catalog")).text();
  slug = html.match(/href="\/listings\/([^"/?#]+)"/)![1];
});

test("app/ has pages and routes to walk", () => {
  expect(found.filter((f) => f.kind === "page").length).toBeGreaterThanOrEqual(10);
  expect(found.filter((f) => f.kind === "route").length).toBeGreaterThanOrEqual(20);
  for (const f of found) expect(concrete(f.pattern, "x"), f.pattern).not.toMatch(/\[/);
});

test("every page and route, anonymous: the headers", async ({ request }) => {
  for (const f of found) {
    const url = concrete(f.pattern, slug);
    if (f.kind === "page") await expectPage(request, url);
    else for (const m of f.methods) await expectRoute(request, m, url);
  }
  // A static chunk carries nosniff too (next.config.mjs headers()).
  const chunk = (await (await request.get("/catalog")).text()).match(/src="(\/_next\/static\/[^"]+\.js)"/)![1];
  expect((await request.get(chunk)).headers()["x-content-type-options"]).toBe("nosniff");
});

test("every page, signed in as an admin: the headers, and a fresh nonce per request", async ({ page }) => {
  await signInAs(page, "admin@demo", "/admin");
  const request = page.context().request;
  for (const f of found.filter((x) => x.kind === "page")) await expectPage(request, concrete(f.pattern, slug));
  const a = await expectPage(request, "/catalog");
  const b = await expectPage(request, "/catalog");
  expect(a).not.toBe(b);
});

/** Console errors and page errors while `fn` runs, and proof React hydrated. */
async function cspClean(page: Page, fn: () => Promise<void>) {
  const problems: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error" || /Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text());
  });
  page.on("pageerror", (e) => problems.push(e.message));
  await fn();
  // Server-rendered content is visible before hydration ends: wait for it (a page whose scripts a policy blocks never hydrates).
  await expect.poll(() => page.evaluate(() => Object.keys(document.querySelector("main") ?? {}).some((k) => k.startsWith("__react"))), { message: "React hydrated the page", timeout: 10_000 }).toBe(true);
  expect(problems.filter((p) => /Content Security Policy|Refused to|nonce/i.test(p))).toEqual([]);
}

test("pages work under the policy: sign-in (next-auth), the catalog, a listing's charts, the dashboard, the admin desk", async ({ page }) => {
  await cspClean(page, async () => {
    await page.goto("/catalog");
    await expect(page.getByRole("heading", { name: "Pay-per-call APIs" })).toBeVisible();
  });
  await cspClean(page, async () => {
    await page.goto(`/listings/${slug}`);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await page.waitForLoadState("networkidle");
  });
  await cspClean(page, async () => {
    // The demo sign-in button is next-auth's client signIn(): it needs the app's scripts to run.
    await signInAs(page, "seller@demo", "/dashboard");
    await expect(page.getByRole("heading", { name: "My listings" })).toBeVisible();
  });
  await cspClean(page, async () => {
    await page.getByRole("link").filter({ hasText: /./ }).locator("xpath=self::a[starts-with(@href, '/dashboard/listings/')]").first().click();
    await page.waitForURL(/\/dashboard\/listings\//);
    await page.waitForLoadState("networkidle");
  });
  await cspClean(page, async () => {
    await signInAs(page, "admin@demo", "/admin/canary");
    await page.waitForLoadState("networkidle");
  });
});

/** A raw POST to a page (a server action), sending `send` bytes of what its headers declare; the status and body that came back. */
function rawAction(baseURL: string, headers: Record<string, string>, send: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${baseURL}/admin/listings/no-such-id`, { method: "POST", headers: { "next-action": "0123456789abcdef", "content-type": "text/plain;charset=UTF-8", origin: baseURL, ...headers } }, (res) => {
      let body = "";
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.setTimeout(20_000, () => req.destroy(new Error("no answer in 20 s")));
    req.write(Buffer.alloc(send, 120));
    if (!headers["content-length"]) req.end();
  });
}

test("a server action's body: a declared 2 GB is 413 without waiting for it, a chunked one 411", async ({ baseURL }) => {
  const declared = await rawAction(baseURL!, { "content-length": String(2 ** 31) }, 64 << 10);
  expect(declared.status).toBe(413);
  expect(JSON.parse(declared.body).error).toMatchObject({ code: "payload_too_large", limitBytes: 1 << 20 });
  const chunked = await rawAction(baseURL!, { "transfer-encoding": "chunked" }, 2 << 20);
  expect(chunked.status).toBe(411);
});
