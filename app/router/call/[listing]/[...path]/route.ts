/**
 * ANY /router/call/<listing slug>/<endpoint path> — the paying relay (lib/router/relay-call.ts):
 * authenticated by an API key only, forwards the call to the listing's seller, returns the seller's
 * answer made inert for a browser (lib/router/relay-response.ts) and records a payment attempt in the
 * ledger; the attempt's on-chain confirmation runs after the answer (Next's after()). docs/ROUTER.md.
 */
import { after } from "next/server";
import { isAppError, toResponse } from "@/lib/errors";
import { routeParams } from "@/lib/http";
import { takeRateLimit } from "@/lib/limits";
import { authenticateCaller, relayCall } from "@/lib/router/relay-call";
import { assertRelayOrigin, withRelayHeaders } from "@/lib/router/relay-response";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ listing: string; path: string[] }> };

/**
 * Next runs the task once the response has been sent. Outside a Next request (a test or the bench
 * calling this handler directly) after() throws before taking the task; it then starts at once and
 * runs alongside the answer. Either way the row is recorded first and the ledger tick is the net.
 */
function afterAnswer(task: () => Promise<void>): void {
  try {
    after(task);
  } catch {
    void task();
  }
}

async function handle(req: Request, ctx: Context): Promise<Response> {
  try {
    assertRelayOrigin(req);
    const { listing, path } = await routeParams(ctx.params);
    // Who is calling, and whether their budget has a token left, before the relay reads a byte of
    // the body or reaches a seller (docs/LIMITS.md; tokens leased in blocks, "Leased tokens").
    const caller = await authenticateCaller(req);
    await takeRateLimit("call", `${caller.kind}:${caller.id}`, { lease: true });
    return await relayCall(req, listing, path.map(encodeURIComponent).join("/"), { caller, afterAnswer });
  } catch (e) {
    const res = withRelayHeaders(toResponse(e));
    if (res.status === 401) res.headers.set("www-authenticate", 'Bearer realm="tollgate"');
    if (isAppError(e) && e.code === "misdirected_request") res.headers.set("location", String(e.extra.location));
    return res;
  }
}

export const GET = handle;
export const POST = handle;
export const PUT = handle;
export const PATCH = handle;
export const DELETE = handle;
export const HEAD = handle;
export const OPTIONS = handle;
