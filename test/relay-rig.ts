/**
 * The relay's browser rig (e2e/relay-inert.spec.ts), run with tsx as its own process: a hostile
 * seller whose pages carry script, a listing of them on a fresh database, an API key, and the
 * relay's route over loopback HTTP. Prints one JSON line ({origin, slug, secret}); stops on SIGTERM.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createApiKey } from "@/lib/apikeys";
import { createTestDatabase } from "@/test/db";
import { createTestListing } from "@/test/ledger";
import { serveRoutes } from "@/test/route-server";
import { routerCallRoute } from "@/test/router-routes";

/** What the seller's script would do on our origin: mint an API key, signal, and beacon out. */
const SCRIPT = `<script>
  document.title = "script ran";
  fetch("/api/admin/api-keys", { method: "POST", headers: { "content-type": "application/json" }, body: '{"name":"stolen"}' });
  new Image().src = "/leak?from=script";
</script>`;
/** path → [Content-Type (null: none), body]. */
export const RIG_PAGES: Record<string, [string | null, string]> = {
  html: ["text/html; charset=utf-8", `<!doctype html><title>seller page</title><p id="p">hello</p>${SCRIPT}`],
  svg: ["image/svg+xml", `<svg xmlns="http://www.w3.org/2000/svg" onload="document.title='script ran'"><title>seller svg</title><script>new Image().src="/leak?from=svg"</script></svg>`],
  untyped: [null, `<!doctype html><title>seller page</title>${SCRIPT}`],
};

async function main() {
  const seller = createServer((req, res) => {
    const [type, body] = RIG_PAGES[(req.url ?? "/").slice(1)] ?? [null, ""];
    res.writeHead(200, type ? { "content-type": type } : {}).end(body);
  });
  await new Promise<void>((r) => seller.listen(0, "127.0.0.1", r));
  const sellerPort = (seller.address() as AddressInfo).port;
  process.env.TOLLGATE_PROBE_ALLOW_HOSTS = `127.0.0.1:${sellerPort}`;
  const t = await createTestDatabase();
  const admin = (await t.prisma.user.create({ data: { name: "Admin", role: "admin" } })).id;
  const secret = (await createApiKey({ actorId: admin, name: "browser test", scopes: ["router:call"] })).secret;
  const id = await createTestListing(t.prisma, { baseUrl: `http://127.0.0.1:${sellerPort}`, endpoints: Object.keys(RIG_PAGES).map((p) => ({ method: "GET", path: `/${p}` })) });
  const slug = (await t.prisma.listing.findUniqueOrThrow({ where: { id }, select: { slug: true } })).slug;
  const router = await serveRoutes(routerCallRoute());
  process.stdout.write(JSON.stringify({ origin: router.origin, slug, secret }) + "\n");
  process.on("SIGTERM", async () => {
    await router.close();
    await t.close();
    seller.close();
    process.exit(0);
  });
}

if (process.argv[1]?.endsWith("relay-rig.ts")) void main();
