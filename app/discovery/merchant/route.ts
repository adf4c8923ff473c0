/** GET /discovery/merchant?payTo=: every published resource paying one address (docs/DISCOVERY.md "Merchant"). */
import { badParameter, parseListParams } from "@/lib/catalog/discovery-params";
import { merchantResources } from "@/lib/catalog/discovery";
import { discoveryRoute } from "@/lib/catalog/discovery-route";

export const dynamic = "force-dynamic";

export const GET = discoveryRoute(async (q) => {
  const p = parseListParams(q);
  if (p.filters.payTo === undefined) throw badParameter("payTo", "is required");
  return merchantResources(p.filters.payTo, p);
});
