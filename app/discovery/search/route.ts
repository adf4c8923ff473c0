/** GET /discovery/search?query=: the x402 Bazaar's search, by relevance, with `partialResults` (docs/DISCOVERY.md). */
import { parseSearchParams } from "@/lib/catalog/discovery-params";
import { searchDiscoveryResources } from "@/lib/catalog/discovery";
import { discoveryRoute } from "@/lib/catalog/discovery-route";

export const dynamic = "force-dynamic";

export const GET = discoveryRoute((q) => searchDiscoveryResources(parseSearchParams(q)));
