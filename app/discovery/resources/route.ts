/** GET /discovery/resources: the x402 Bazaar's list of discoverable resources, served from our evidence (docs/DISCOVERY.md). */
import { parseListParams } from "@/lib/catalog/discovery-params";
import { listDiscoveryResources } from "@/lib/catalog/discovery";
import { discoveryRoute } from "@/lib/catalog/discovery-route";

export const dynamic = "force-dynamic";

export const GET = discoveryRoute((q) => listDiscoveryResources(parseListParams(q)));
