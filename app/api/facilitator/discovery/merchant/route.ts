/** The facilitator's discovery path, for x402 clients pointed at /api/facilitator: the same as /discovery/merchant (docs/DISCOVERY.md). */
export { GET } from "@/app/discovery/merchant/route";

export const dynamic = "force-dynamic";
