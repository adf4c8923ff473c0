/**
 * The page cache's loads (PGlite, or server PostgreSQL with TEST_DATABASE_URL): one load per key at a
 * time, a failed load leaves nothing behind, a request never takes a load that began before a write it
 * follows, and an entry past its refresh age is served while one reload runs in the background.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exec } from "@/lib/sql";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { pageCache, readTagVersions, type Loaded } from "./page-cache";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
}, 120_000);
afterAll(async () => {
  await t?.close();
});

let tags = 0;
const freshTag = () => `test:${process.pid}:${++tags}:${Math.random().toString(36).slice(2)}`;
/** A write to `tag`: its version moves, as a trigger moves it at a page's writer's commit. */
const bump = (tag: string) =>
  exec(t, `INSERT INTO "page_versions" ("tag", "version") VALUES ($1, nextval('page_version_seq')) ON CONFLICT ("tag") DO UPDATE SET "version" = nextval('page_version_seq')`, tag);

/** A promise and its resolver. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((r) => (open = r));
  return { wait, open };
}

/** A loader reading `tag`'s version first (as the pages do), then the "data": `state.n` at that moment, after `hold`. */
function loader(tag: string, state: { n: number }, hold?: Promise<void>) {
  let calls = 0;
  const load = async (): Promise<Loaded<{ n: number }>> => {
    calls++;
    const versions = await readTagVersions(t, [tag]);
    const n = state.n;
    if (hold) await hold;
    return { value: { n }, versions };
  };
  return { load, calls: () => calls };
}

describe("single flight", () => {
  it("twenty concurrent misses of one key cause one load, and all get its value", async () => {
    const cache = pageCache<{ n: number }>();
    const g = gate();
    const l = loader(freshTag(), { n: 7 }, g.wait);
    const all = Array.from({ length: 20 }, () => cache.get("k", l.load));
    await new Promise((r) => setTimeout(r, 20));
    g.open();
    const got = await Promise.all(all);
    expect(l.calls()).toBe(1);
    expect(new Set(got).size).toBe(1);
    expect(got[0]).toEqual({ n: 7 });
    expect(cache.stats()).toMatchObject({ loads: 1, joined: 19 });
  });

  it("a failed load is not kept: those that waited on it see its error, the next request loads again", async () => {
    const cache = pageCache<{ n: number }>();
    const tag = freshTag();
    const g = gate();
    let fail = true;
    const load = async (): Promise<Loaded<{ n: number }>> => {
      await g.wait;
      if (fail) throw new Error("database went away");
      return { value: { n: 1 }, versions: await readTagVersions(t, [tag]) };
    };
    const first = Array.from({ length: 5 }, () => cache.get("k", load));
    g.open();
    for (const p of first) await expect(p).rejects.toThrow("database went away");
    expect(cache.stats()).toMatchObject({ loads: 1, entries: 0 });
    fail = false;
    expect(await cache.get("k", load)).toEqual({ n: 1 });
    expect(cache.stats().loads).toBe(2);
  });

  it("a request that arrives after a write does not take a load that began before it", async () => {
    const cache = pageCache<{ n: number }>();
    const tag = freshTag();
    await bump(tag);
    const state = { n: 1 };
    const g = gate();
    const l = loader(tag, state, g.wait);
    const early = cache.get("k", l.load);
    await new Promise((r) => setTimeout(r, 20)); // the load has read its version and its data
    state.n = 2;
    await bump(tag);
    const late = cache.get("k", l.load);
    g.open();
    expect(await early).toEqual({ n: 1 });
    expect(await late).toEqual({ n: 2 });
    expect(l.calls()).toBe(2);
  });

  it("a request that arrives during an older load with nothing written since takes the kept value after one check", async () => {
    const cache = pageCache<{ n: number }>();
    const tag = freshTag();
    const g = gate();
    const l = loader(tag, { n: 3 }, g.wait);
    const early = cache.get("k", l.load);
    await new Promise((r) => setTimeout(r, 20));
    const late = cache.get("k", l.load);
    g.open();
    expect(await late).toBe(await early);
    expect(l.calls()).toBe(1);
    expect(cache.stats()).toMatchObject({ loads: 1, hits: 1 });
  });

  it("a slug nobody has is not kept, and a hammered one costs one load per wave", async () => {
    const cache = pageCache<{ n: number }>();
    const g = gate();
    let calls = 0;
    const load = async (): Promise<Loaded<{ n: number }>> => {
      calls++;
      await g.wait;
      return { value: null, versions: {} };
    };
    const all = Array.from({ length: 10 }, () => cache.get("nobody", load));
    g.open();
    expect(await Promise.all(all)).toEqual(Array(10).fill(null));
    expect(calls).toBe(1);
    expect(await cache.get("nobody", load)).toBeNull();
    expect(calls).toBe(2);
  });
});

describe("refresh by age", () => {
  it("past refreshMs an unchanged entry is served at once and one reload runs in the background", async () => {
    const cache = pageCache<{ n: number }>({ refreshMs: 1_000 });
    const tag = freshTag();
    const state = { n: 1 };
    const l = loader(tag, state);
    expect(await cache.get("k", l.load, 0)).toEqual({ n: 1 });
    state.n = 2; // what no tag covers: picked up by age only
    expect(await cache.get("k", l.load, 999)).toEqual({ n: 1 });
    expect(l.calls()).toBe(1);
    const stale = await Promise.all([cache.get("k", l.load, 1_000), cache.get("k", l.load, 1_001), cache.get("k", l.load, 1_002)]);
    expect(stale).toEqual([{ n: 1 }, { n: 1 }, { n: 1 }]);
    expect(l.calls()).toBe(2); // one reload for the three
    for (let i = 0; i < 500 && cache.stats().entries === 1 && (await cache.get("k", l.load, 1_100))!.n === 1; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await cache.get("k", l.load, 1_100)).toEqual({ n: 2 });
    expect(l.calls()).toBe(2);
  });

  it("a changed tag is still seen on the next request, refresh or not", async () => {
    const cache = pageCache<{ n: number }>({ refreshMs: 60_000 });
    const tag = freshTag();
    const state = { n: 1 };
    const l = loader(tag, state);
    expect(await cache.get("k", l.load, 0)).toEqual({ n: 1 });
    state.n = 2;
    await bump(tag);
    expect(await cache.get("k", l.load, 1)).toEqual({ n: 2 });
  });
});
