/**
 * The facilitator's HTTP door, POST /api/facilitator/{verify,settle} (docs/CHAIN.md "Who may settle"):
 * the caller is authenticated (./callers.ts) and takes a token of its own rate limit before a byte of
 * the body is read; the body is read bounded and checked; the payer named by the authorization takes
 * a token of its limit; a settlement that passed lib/chain's preflight reserves gas on the caller's
 * daily budget (./gas.ts) before the signer sends, in the caller's own send queue.
 */
import { FacilitatorRequestBody, facilitatorFromEnv, payerOf, settle, verify } from "@/lib/chain/facilitator";
import { BODY_LIMITS, readBody } from "@/lib/http";
import { takeRateLimit } from "@/lib/limits";
import { authenticateFacilitatorCaller } from "./callers";
import { reserveGas } from "./gas";

export async function facilitatorRequest(req: Request, what: "verify" | "settle"): Promise<Response> {
  const setup = facilitatorFromEnv();
  const caller = await authenticateFacilitatorCaller(req.headers.get("authorization"));
  await takeRateLimit("facilitator", caller.id);
  const body = await readBody(req, FacilitatorRequestBody, BODY_LIMITS.facilitator, "a facilitator request");
  const payer = payerOf(body);
  if (payer) await takeRateLimit("facilitatorPayer", payer.toLowerCase());
  if (what === "verify") return Response.json(await verify(setup, body));
  return Response.json(await settle(setup, body, { caller: caller.id, admit: () => reserveGas(caller.id) }));
}
