import { mkdtempSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badgeForListing, badgeKeyring, catalogUrl, parseBadgeSegment, setBadgeKeyring } from "./server";
import { seedListing } from "@/test/badges-db";
import { KEY_FILE_NAME } from "./keys";
import { createTestDatabase, type TestDatabase } from "@/test/db";

// env() is parsed once per process (here: per test file), so set what it reads before anything calls it.
const dataDir = mkdtempSync(path.join(os.tmpdir(), "tollgate-badge-server-"));
const saved = { ...process.env };
let tdb: TestDatabase;

beforeAll(async () => {
  delete process.env.BADGE_SIGNING_KEY;
  delete process.env.BADGE_PREVIOUS_KEYS;
  process.env.TOLLGATE_DATA_DIR = dataDir;
  process.env.TOLLGATE_PUBLIC_URL = "https://tollgate.example/";
  tdb = await createTestDatabase();
});
afterAll(async () => {
  process.env = saved;
  setBadgeKeyring(undefined);
  await tdb?.close();
});

describe("badgeKeyring", () => {
  it("loads once per process from <dataDir>/badge-keys.json (mode 0600) and reuses it", async () => {
    setBadgeKeyring(undefined);
    const [a, b] = await Promise.all([badgeKeyring(), badgeKeyring()]);
    expect(a).toBe(b);
    expect(a.source).toBe("file");
    expect(a.file).toBe(path.join(dataDir, KEY_FILE_NAME));
    expect(statSync(a.file!).mode & 0o777).toBe(0o600);
    expect(await badgeKeyring()).toBe(a);
    // A new process (simulated by forgetting the singleton) gets the same key from the file.
    setBadgeKeyring(undefined);
    expect((await badgeKeyring()).active.keyid).toBe(a.active.keyid);
  });
});

describe("catalogUrl", () => {
  it("joins an origin and an escaped slug", () => {
    expect(catalogUrl("https://tollgate.example", "a b")).toBe("https://tollgate.example/listings/a%20b");
  });

  it("badgeForListing links the signed badge to the configured origin's catalog page", async () => {
    const l = await seedListing(tdb.prisma, { results: [{ total: 90 }] });
    const found = await badgeForListing(l.slug, "flat", undefined, new Date());
    expect(found?.badge.signed).toBe(true);
    if (found?.badge.signed) expect(found.badge.statement.listing.url).toBe(`https://tollgate.example/listings/${l.slug}`);
    expect(await badgeForListing("no-such-listing", "flat", undefined, new Date())).toBeNull();
  });

  it("an archived listing still answers (the unsigned badge); a deleted one, its tombstone, is not found, by slug or id", async () => {
    const l = await seedListing(tdb.prisma, { state: "archived", results: [{ total: 90 }] });
    expect((await badgeForListing(l.slug, "flat", undefined, new Date()))?.badge.signed).toBe(false);
    await tdb.prisma.listing.update({ where: { id: l.id }, data: { deletedAt: new Date() } });
    expect(await badgeForListing(l.slug, "flat", undefined, new Date())).toBeNull();
    expect(await badgeForListing(l.id, "flat", undefined, new Date())).toBeNull();
  });

  it("memoises per issue window: the same inputs in the same hour are the same object", async () => {
    const l = await seedListing(tdb.prisma, { results: [{ total: 77 }] });
    const t = new Date();
    const a = await badgeForListing(l.slug, "plastic", "api", t);
    const b = await badgeForListing(l.id, "plastic", "api", t);
    expect(b!.badge).toBe(a!.badge);
    const later = await badgeForListing(l.slug, "plastic", "api", new Date(t.getTime() + 3_600_000));
    expect(later!.badge).not.toBe(a!.badge);
  });
});

describe("parseBadgeSegment", () => {
  it("splits <slug>.svg and <slug>.dsse.json, refuses the rest", () => {
    expect(parseBadgeSegment("acme-weather.svg")).toEqual({ slug: "acme-weather", format: "svg" });
    expect(parseBadgeSegment("acme.weather.svg")).toEqual({ slug: "acme.weather", format: "svg" });
    expect(parseBadgeSegment("acme-weather.dsse.json")).toEqual({ slug: "acme-weather", format: "envelope" });
    for (const s of ["acme-weather", ".svg", "acme.json", "acme.SVG", `${"a".repeat(201)}.svg`]) expect(parseBadgeSegment(s), s).toBeNull();
  });
});
