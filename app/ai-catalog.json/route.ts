/** GET /ai-catalog.json — the keyless catalog feed in browse order, no scores (docs/FEEDS.md). */
import { aiCatalogFeed, feedRoute } from "@/lib/catalog/feeds";

export const dynamic = "force-dynamic";

export const GET = feedRoute(aiCatalogFeed);
