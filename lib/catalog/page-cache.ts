/**
 * The public pages' cache, per web process and database (docs/SURFACES.md "Cached public pages"): a
 * page's read model is kept with the versions of its tags as read before (or with) its data, and served
 * again only while one statement finds those versions unchanged. The versions move in the writing
 * transaction, by triggers (migration 20261207080000_page_versions), whichever process writes.
 */
import { database, type DatabaseHandle } from "@/lib/db";
import { rows } from "@/lib/sql";

/** Browse, search and the category pages: every listing's public shape, order and glance. */
export const CATALOG_TAG = "catalog";
/** One listing's own pages: the listing page and its endpoints' trust pages. */
export const listingTag = (listingId: string) => `listing:${listingId}`;

/**
 * The longest an entry is served: what no tag covers (time-relative words, rolling windows, the
 * ledger's activity, peers' statistics, a seller's renamed organisation) is at most this old.
 */
export const PAGE_TTL_MS = 60_000;

/** Tag → version as text ("0" for a tag never written). */
export type TagVersions = Record<string, string>;

/** The current versions of these tags, in one statement. */
export async function readTagVersions(h: DatabaseHandle, tags: readonly string[]): Promise<TagVersions> {
  const found = await rows<{ tag: string; version: string }>(h, `SELECT "tag", "version"::text AS "version" FROM "page_versions" WHERE "tag" = ANY($1::text[])`, [...tags]);
  const out: TagVersions = Object.fromEntries(tags.map((t) => [t, "0"]));
  for (const r of found) out[r.tag] = r.version;
  return out;
}

const sameVersions = (a: TagVersions, b: TagVersions) => Object.keys(a).length === Object.keys(b).length && Object.keys(a).every((t) => a[t] === b[t]);
const versionKey = (v: TagVersions) => Object.keys(v).sort().map((t) => `${t}=${v[t]}`).join(" ");

/** What a page's loader returns: its value (null: nothing to show, not kept) and its tags' versions, read no later than its data. */
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
  /** The value under `key`: the kept one while its tags are unchanged and it is younger than the TTL, else `load`'s. */
  get(key: string, load: () => Promise<Loaded<T>>, now?: number): Promise<T | null>;
  /** Entries kept and loads run since the process started (tests, the bench). */
  stats(): { entries: number; hits: number; loads: number };
}

export function pageCache<T>(ttlMs = PAGE_TTL_MS, maxEntries = 2_000): PageCache<T> {
  const byDatabase = new WeakMap<object, Map<string, Entry<T>>>();
  // Loads in flight after a version check, by key and the versions that check read: a request that
  // read the same versions joins one, as its data is read after those versions were.
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
        m.set(key, kept); // most recently used last
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
