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
import { bazaarOnSettle, bazaarOnVerify } from "./receipt";
import { EXTENSION_RESPONSES_HEADER, encodeExtensionResponses, type BazaarExtensionResponse } from "@/lib/x402/bazaar-receipt";

export async function facilitatorRequest(req: Request, what: "verify" | "settle"): Promise<Response> {
  const setup = facilitatorFromEnv();
  const caller = await authenticateFacilitatorCaller(req.headers.get("authorization"));
  await takeRateLimit("facilitator", caller.id);
  const body = await readBody(req, FacilitatorRequestBody, BODY_LIMITS.facilitator, "a facilitator request");
  const payer = payerOf(body);
  if (payer) await takeRateLimit("facilitatorPayer", payer.toLowerCase());
  if (what === "verify") {
    const verified = await verify(setup, body);
    return withReceipt(verified, () => bazaarOnVerify(body, verified, caller.id));
  }
  const settled = await settle(setup, body, { caller: caller.id, admit: () => reserveGas(caller.id) });
  return withReceipt(settled, () => bazaarOnSettle(body, settled, caller.id));
}

/**
 * The answer with its EXTENSION-RESPONSES header when the payload carried a bazaar extension. The
 * payment's answer never waits on the catalog failing: a receipt that cannot be written is reported
 * `rejected` (`receipt_unavailable`) and the payment's result goes back as it is.
 */
async function withReceipt(result: object, bazaar: () => Promise<BazaarExtensionResponse | null>): Promise<Response> {
  let outcome: BazaarExtensionResponse | null;
  try {
    outcome = await bazaar();
  } catch (e) {
    outcome = { status: "rejected", rejectedReason: `receipt_unavailable: ${e instanceof Error ? e.message.slice(0, 200) : "the receipt could not be stored"}` };
  }
  return Response.json(result, outcome ? { headers: { [EXTENSION_RESPONSES_HEADER]: encodeExtensionResponses(outcome) } } : undefined);
}
