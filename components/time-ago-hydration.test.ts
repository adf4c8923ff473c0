/**
 * Client components that say "… ago" render the same words on the server and in the browser's first
 * render however much later that runs: React refuses a hydration whose text differs (error #418) and
 * throws the server's HTML away. Each takes the page's render time as `now`.
 */
import { createElement } from "react";
import { renderToString } from "react-dom/server";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SellerListings, type SellerListingRow } from "./seller-listings";
import { KeysSection } from "./admin/api-keys-sections";
import type { ApiKeyInfo } from "@/lib/apikeys";
import { API_KEY_SCOPES } from "@/lib/apikeys/scopes";

const RENDERED_AT = Date.parse("2026-12-06T12:00:30.000Z");
/** Render once at the page's time and once 45 s later, crossing a minute boundary, as a slow hydration would. */
function serverThenBrowser(render: () => string): [string, string] {
  vi.useFakeTimers();
  vi.setSystemTime(RENDERED_AT);
  const server = text(render());
  vi.setSystemTime(RENDERED_AT + 45_000);
  return [server, text(render())];
}
afterEach(() => vi.useRealTimers());
/** React's text-node separators out, so the words read as on the page. */
const text = (html: string) => html.replaceAll("<!-- -->", "");

describe("… ago in client components", () => {
  it("SellerListings says the same 'changed … ago' in both renders", () => {
    const row: SellerListingRow = { id: "l1", slug: "geocodr", title: "Geocodr", baseUrl: "https://geo.example", publicationState: "published", endpoints: 2, updatedAt: "2026-12-06T11:58:40.000Z", total: 96, band: "excellent", stale: false, analysis: null };
    const [server, browser] = serverThenBrowser(() => renderToString(createElement(SellerListings, { rows: [row], now: RENDERED_AT })));
    expect(server).toContain("changed 2 min ago");
    expect(browser).toBe(server);
  });

  it("the API keys list says the same 'created', 'last used' and 'revoked' in both renders", () => {
    const key: ApiKeyInfo = { id: "k1", name: "agent", prefix: "tg_ab12", scopes: [API_KEY_SCOPES[0]], createdAt: "2026-12-06T11:58:10.000Z", createdById: "u1", lastUsedAt: "2026-12-06T11:59:50.000Z", revokedAt: "2026-12-06T12:00:20.000Z" };
    const props = { keys: [key], shown: [key], now: RENDERED_AT, filter: "all" as const, setFilter: () => {}, confirming: null, setConfirming: () => {}, pending: false, revoke: () => {} };
    const [server, browser] = serverThenBrowser(() => renderToString(createElement(KeysSection, props)));
    expect(server).toContain("2 min ago");
    expect(server).toContain("revoked just now");
    expect(browser).toBe(server);
  });
});
