import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { seedListing, seedOwner } from "@/test/analyses";
import { crossOwnerOverlaps, endpointSetKey, findOverlappingListings, normaliseBaseUrl, overlapReason } from "./overlap";
import { shortSlug } from "./save";

describe("one service, two listings", () => {
  it("compares base URLs without scheme, host case, www, default port or trailing slash", () => {
    expect(normaliseBaseUrl("https://API.Example.com/")).toBe("api.example.com");
    expect(normaliseBaseUrl("http://www.api.example.com:80/v1/")).toBe("api.example.com/v1");
    expect(normaliseBaseUrl("https://api.example.com:8443/v1")).toBe("api.example.com:8443/v1");
    expect(normaliseBaseUrl("not a url")).toBeNull();
    expect(normaliseBaseUrl("ftp://x.example.com")).toBeNull();
  });

  it("compares endpoint sets by full URL, so a base path moved into the paths still matches", () => {
    const a = { baseUrl: "https://x.example.com/api", endpoints: [{ method: "get", path: "/v1/a" }, { method: "POST", path: "/v1/b" }] };
    const b = { baseUrl: "https://x.example.com", endpoints: [{ method: "POST", path: "/api/v1/b" }, { method: "GET", path: "/api/v1/a" }] };
    expect(endpointSetKey(a)).toBe(endpointSetKey(b));
    expect(overlapReason(a, b)).toBe("endpoints");
    expect(overlapReason(a, { ...a, baseUrl: "https://x.example.com/api/" })).toBe("base_url");
    expect(overlapReason(a, { ...b, endpoints: b.endpoints.slice(1) })).toBeNull();
    // No endpoints on both sides is not "the same endpoint set".
    expect(overlapReason({ baseUrl: "https://a.example.com", endpoints: [] }, { baseUrl: "https://b.example.com", endpoints: [] })).toBeNull();
  });

  it("flags only other organisations' listings for the moderators", () => {
    const rows = [
      { id: "1", title: "A", organizationId: "o1", baseUrl: "https://svc.example.com", endpoints: [] },
      { id: "2", title: "B", organizationId: "o1", baseUrl: "https://svc.example.com/", endpoints: [] },
      { id: "3", title: "C", organizationId: "o2", baseUrl: "http://SVC.example.com", endpoints: [] },
      { id: "4", title: "D", organizationId: "o3", baseUrl: "https://other.example.com", endpoints: [] },
    ];
    const o = crossOwnerOverlaps(rows);
    expect(o.get("1")).toEqual([{ id: "3", title: "C", reason: "base_url" }]);
    expect(o.get("3")!.map((x) => x.id).sort()).toEqual(["1", "2"]);
    expect(o.has("4")).toBe(false);
  });

  it("keeps slugs short and readable, cut at a whole word", () => {
    expect(shortSlug("Weather forecasts by coordinates")).toBe("weather-forecasts-by-coordinates");
    const long = shortSlug("Weather forecasts by coordinates for agents and for people who travel a lot");
    expect(long).toBe("weather-forecasts-by-coordinates-for-agents-and");
    expect(long.length).toBeLessThanOrEqual(48);
    expect(shortSlug("x".repeat(100))).toBe("x".repeat(48));
  });
});

describe("findOverlappingListings (database)", () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(() => t.close());

  it("finds listings of the same service across organisations, by base URL or endpoint set, and nothing else", async () => {
    const a = await seedOwner(t.prisma);
    const b = await seedOwner(t.prisma);
    const mine = await seedListing(t.prisma, a.user.organizationId!, { title: "Forecasts", baseUrl: "https://forecast.example.com" });
    const theirs = await seedListing(t.prisma, b.user.organizationId!, { title: "Forecasts mirror", baseUrl: "https://FORECAST.example.com/" });
    await seedListing(t.prisma, b.user.organizationId!, { title: "Unrelated", baseUrl: "https://forecastless.example.org" });
    const found = await findOverlappingListings(t.prisma, { baseUrl: "http://forecast.example.com", endpoints: [] });
    expect(found.map((f) => [f.id, f.reason, f.organizationId]).sort()).toEqual(
      [
        [mine, "base_url", a.user.organizationId],
        [theirs, "base_url", b.user.organizationId],
      ].sort(),
    );
    expect(await findOverlappingListings(t.prisma, { baseUrl: "https://forecast.example.com", endpoints: [] }, { excludeListingId: mine })).toHaveLength(1);
  });
});
