/**
 * How a seller here reaches its facilitator: a URL (an open facilitator), a URL with the credential
 * Tollgate's facilitator asks of its callers (docs/CHAIN.md "Who may settle": an API key with the
 * `facilitator:settle` scope, or a named seller token, sent as `Authorization: Bearer …` through
 * @x402/core's HTTPFacilitatorClient `createAuthHeaders`), or a FacilitatorClient in process.
 */
import { HTTPFacilitatorClient, type FacilitatorClient } from "@x402/core/server";

export type FacilitatorTarget = string | { url: string; token: string } | FacilitatorClient;

export function facilitatorClientFor(target: FacilitatorTarget): FacilitatorClient {
  if (typeof target === "string") return new HTTPFacilitatorClient({ url: target });
  if ("url" in target && "token" in target && typeof target.token === "string") {
    const headers = { Authorization: `Bearer ${target.token}` };
    return new HTTPFacilitatorClient({ url: target.url, createAuthHeaders: async () => ({ verify: headers, settle: headers, supported: headers }) });
  }
  return target as FacilitatorClient;
}
