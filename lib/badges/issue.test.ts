import { describe, expect, it } from "vitest";
import { BadgeCache, badgeCacheKey, ifNoneMatchHits, issueReadinessBadge } from "./issue";
import { publicKeySet } from "./keys";
import { NOW, PUBLISHED, fixedKeyring } from "@/test/badges";
import { verifyBadge } from "./verify";

const keyring = fixedKeyring();

describe("issueReadinessBadge", () => {
  it("signs a published result and the SVG verifies", async () => {
    const b = issueReadinessBadge({ ...PUBLISHED, keyring, style: "flat", now: NOW });
    expect(b.signed).toBe(true);
    expect(await verifyBadge(b.svg, { keys: publicKeySet(keyring), now: NOW })).toMatchObject({ ok: true });
  });

  it("a provisional result never produces a signed badge or shows its score", () => {
    const b = issueReadinessBadge({ ...PUBLISHED, result: { ...PUBLISHED.result!, provisional: true, score: 73 }, keyring, style: "flat", now: NOW });
    expect(b).toMatchObject({ signed: false, refusal: { code: "result_provisional" } });
    expect(b.svg).not.toContain("<metadata");
    expect(b.svg).not.toMatch(/73 ·|Almost ready/);
    expect(b.svg).toContain("not yet scored");
  });

  it("an unpublished listing gets an unsigned badge without a link", () => {
    const b = issueReadinessBadge({ ...PUBLISHED, listing: { ...PUBLISHED.listing, published: false }, keyring, style: "plastic", now: NOW });
    expect(b).toMatchObject({ signed: false, refusal: { code: "listing_unpublished" } });
    expect(b.svg).not.toContain("<a ");
    expect(b.svg).not.toMatch(/96 ·|Excellent/);
  });

  it("gives the same bytes and ETag within an issue window", () => {
    const a = issueReadinessBadge({ ...PUBLISHED, keyring, style: "flat", now: new Date("2026-12-02T10:01:00Z") });
    const b = issueReadinessBadge({ ...PUBLISHED, keyring, style: "flat", now: new Date("2026-12-02T10:59:00Z") });
    const c = issueReadinessBadge({ ...PUBLISHED, keyring, style: "flat", now: new Date("2026-12-02T11:00:00Z") });
    expect(a.etag).toBe(b.etag);
    expect(a.svg).toBe(b.svg);
    expect(c.etag).not.toBe(a.etag);
  });
});

describe("ifNoneMatchHits", () => {
  it.each([
    ['"abc"', '"abc"', true],
    ['W/"abc"', '"abc"', true],
    ['"x", "abc"', '"abc"', true],
    ["*", '"abc"', true],
    ['"abd"', '"abc"', false],
    [null, '"abc"', false],
  ] as const)("%s vs %s → %s", (header, etag, hit) => expect(ifNoneMatchHits(header, etag)).toBe(hit));
});

describe("BadgeCache", () => {
  it("expires entries and evicts the least recently used", () => {
    const cache = new BadgeCache(2);
    const badge = issueReadinessBadge({ ...PUBLISHED, keyring, style: "flat", now: NOW });
    cache.set("a", badge, 1000);
    cache.set("b", badge, 1000);
    expect(cache.get("a", 0)).toBe(badge); // a is now the most recent
    cache.set("c", badge, 1000);
    expect(cache.get("b", 0)).toBeUndefined();
    expect(cache.get("a", 0)).toBe(badge);
    expect(cache.get("a", 1000)).toBeUndefined();
  });

  it("keys on everything the bytes depend on", () => {
    const base = { ...PUBLISHED, keyring, style: "flat" as const };
    const k = badgeCacheKey(base, 0);
    expect(badgeCacheKey({ ...base, style: "plastic" }, 0)).not.toBe(k);
    expect(badgeCacheKey({ ...base, result: { ...base.result!, provisional: true } }, 0)).not.toBe(k);
    expect(badgeCacheKey({ ...base, listing: { ...base.listing, published: false } }, 0)).not.toBe(k);
    expect(badgeCacheKey({ ...base, keyring: fixedKeyring("33".repeat(32)) }, 0)).not.toBe(k);
    expect(badgeCacheKey(base, 3_600_000)).not.toBe(k);
  });
});
