/**
 * POST /api/facilitator/{verify,settle} (docs/CHAIN.md "Who may settle"): caller authenticated and rate-limited
 * before the body is read, then the payer's limit, then gas reserved before the signer sends.
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
 * The payment's answer never waits on the catalog: a receipt that cannot be written is `rejected`
 * (`receipt_unavailable`).
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
