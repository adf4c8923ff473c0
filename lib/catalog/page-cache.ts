/** The public pages' cache: entries kept with their tags' versions, served while those are unchanged (docs/SURFACES.md "Cached public pages"). */
import { database, type DatabaseHandle } from "@/lib/db";
import { rows } from "@/lib/sql";

export const CATALOG_TAG = "catalog";
export const listingTag = (listingId: string) => `listing:${listingId}`;

/** Bounds what no tag covers (time-relative words, rolling windows, peers' statistics). */
export const PAGE_TTL_MS = 60_000;

/** "0" for a tag never written. */
export type TagVersions = Record<string, string>;

export async function readTagVersions(h: DatabaseHandle, tags: readonly string[]): Promise<TagVersions> {
  const found = await rows<{ tag: string; version: string }>(h, `SELECT "tag", "version"::text AS "version" FROM "page_versions" WHERE "tag" = ANY($1::text[])`, [...tags]);
  const out: TagVersions = Object.fromEntries(tags.map((t) => [t, "0"]));
  for (const r of found) out[r.tag] = r.version;
  return out;
}

const sameVersions = (a: TagVersions, b: TagVersions) => Object.keys(a).length === Object.keys(b).length && Object.keys(a).every((t) => a[t] === b[t]);
const versionKey = (v: TagVersions) => Object.keys(v).sort().map((t) => `${t}=${v[t]}`).join(" ");

/** Value (null: nothing to show, not kept) and its tags' versions, read no later than the data. */
export interface Loaded<T> {
  value: T | null;
  versions: TagVersions;
}

interface Entry<T> {
  value: T;
  versions: TagVersions;
  at: number;
}

export interface PageCache<T> {
  get(key: string, load: () => Promise<Loaded<T>>, now?: number): Promise<T | null>;
  stats(): { entries: number; hits: number; loads: number };
}

export function pageCache<T>(ttlMs = PAGE_TTL_MS, maxEntries = 2_000): PageCache<T> {
  const byDatabase = new WeakMap<object, Map<string, Entry<T>>>();
  // Loads in flight by key and versions read: a request that read the same versions joins one.
  const inFlight = new Map<string, Promise<T | null>>();
  let hits = 0;
  let loads = 0;
  let entries = 0;

  const run = (m: Map<string, Entry<T>>, key: string, load: () => Promise<Loaded<T>>, now: number): Promise<T | null> => {
    loads++;
    return load().then(({ value, versions }) => {
      if (value === null) {
        m.delete(key);
        return null;
      }
      m.delete(key);
      m.set(key, { value, versions, at: now });
      if (m.size > maxEntries) m.delete(m.keys().next().value as string);
      entries = m.size;
      return value;
    });
  };

  return {
    async get(key, load, now = performance.now()) {
      const h = await database();
      let m = byDatabase.get(h);
      if (!m) byDatabase.set(h, (m = new Map()));
      const kept = m.get(key);
      if (!kept) return run(m, key, load, now);
      const current = await readTagVersions(h, Object.keys(kept.versions));
      if (sameVersions(current, kept.versions) && now - kept.at < ttlMs) {
        hits++;
        m.delete(key);
        m.set(key, kept);
        return kept.value;
      }
      const joinKey = `${key}\u0000${versionKey(current)}`;
      const running = inFlight.get(joinKey);
      if (running) return running;
      const p = run(m, key, load, now).finally(() => inFlight.delete(joinKey));
      inFlight.set(joinKey, p);
      return p;
    },
    stats: () => ({ entries, hits, loads }),
  };
}
