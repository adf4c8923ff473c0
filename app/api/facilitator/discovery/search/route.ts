/** The facilitator's discovery path, for x402 clients pointed at /api/facilitator: the same as /discovery/search (docs/DISCOVERY.md). */
export { GET } from "@/app/discovery/search/route";

export const dynamic = "force-dynamic";
