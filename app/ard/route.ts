/** GET /ard — the agent-readable directory (ARD) feed in browse order, no scores (docs/FEEDS.md). */
import { ardFeed, feedRoute } from "@/lib/catalog/feeds";

export const dynamic = "force-dynamic";

export const GET = feedRoute(ardFeed);
