/**
 * POST /api/faucet {address} — the demo faucet (demo mode only, TOLLGATE_DEMO_SIGNIN=1; 404 otherwise):
 * sends the wallet test USDC and gas on the local chain (devchain/faucet.ts, bounded amounts).
 * A bad address is a 400 naming /address; per client address and per wallet it is rate-limited (429).
 */
import { demoSignInEnabled } from "@/lib/auth/options";
import { faucetFund, parseFaucetAddress } from "@/devchain/faucet";
import { env } from "@/lib/env";
import { AppError, toResponse } from "@/lib/errors";
import { BODY_LIMITS, readJson } from "@/lib/http";
import { clientAddress, limitsConfig, takeRateLimit } from "@/lib/limits";

export const dynamic = "force-dynamic";

export async function POST(req: Request): Promise<Response> {
  if (!demoSignInEnabled()) return Response.json({ error: { code: "not_found", message: "There is no faucet here: it exists on the demo only." } }, { status: 404 });
  try {
    await takeRateLimit("faucet", clientAddress(req.headers, limitsConfig().trustedProxies));
    const address = parseFaucetAddress(await readJson(req, BODY_LIMITS.faucet, "a faucet request"));
    await takeRateLimit("faucetWallet", address.toLowerCase());
    const rpcUrl = env().TOLLGATE_CHAIN_RPC_URL;
    if (!rpcUrl) throw new AppError("unavailable", "No local chain is configured (TOLLGATE_CHAIN_RPC_URL): the faucet has nothing to send from.");
    return Response.json(await faucetFund(rpcUrl, address), { headers: { "Cache-Control": "no-store" } });
  } catch (e) {
    return toResponse(e);
  }
}
