/** The facilitator's discovery path, for x402 clients pointed at /api/facilitator: the same as /discovery/resources (docs/DISCOVERY.md). */
export { GET } from "@/app/discovery/resources/route";

export const dynamic = "force-dynamic";
