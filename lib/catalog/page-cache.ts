/** The public pages' cache: entries kept with their tags' versions, served while those are unchanged (docs/SURFACES.md "Cached public pages"). */
import { database, type DatabaseHandle } from "@/lib/db";
import { rows } from "@/lib/sql";

export const CATALOG_TAG = "catalog";
export const listingTag = (listingId: string) => `listing:${listingId}`;
/** Moved by a transaction that wrote too many pages' tags to list (a bulk write): every entry reads it. */
export const ALL_TAG = "*";

/** Bounds what no tag covers (time-relative words, rolling windows, peers' statistics). */
export const PAGE_TTL_MS = 60_000;

/** Catalog pages show the sweeps' per-listing results at most this plus one load old (migration 20261208030000). */
export const CATALOG_REFRESH_MS = 10_000;

/** Tag → version as text ("0" for a tag never written). */
export type TagVersions = Record<string, string>;

/** The versions of `tags` and of ALL_TAG. */
export async function readTagVersions(h: DatabaseHandle, wanted: readonly string[]): Promise<TagVersions> {
  const tags = wanted.includes(ALL_TAG) ? wanted : [...wanted, ALL_TAG];
  const found = await rows<{ tag: string; version: string }>(h, `SELECT "tag", "version"::text AS "version" FROM "page_versions" WHERE "tag" = ANY($1::text[])`, [...tags]);
  const out: TagVersions = Object.fromEntries(tags.map((t) => [t, "0"]));
  for (const r of found) out[r.tag] = r.version;
  return out;
}

const sameVersions = (a: TagVersions, b: TagVersions) => Object.keys(a).length === Object.keys(b).length && Object.keys(a).every((t) => a[t] === b[t]);

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
  /** Entries kept, served from the cache, loads run and requests that waited on another's load (tests, the bench). */
  stats(): { entries: number; hits: number; loads: number; joined: number };
}

export interface PageCacheOptions {
  /** The longest an entry is served (default PAGE_TTL_MS). */
  ttlMs?: number;
  maxEntries?: number;
  /**
   * Past this age an entry whose tags are unchanged is still served, and one reload starts in the
   * background: what changes untagged (a catalog page's order and grades) is at most this plus one
   * load old. Unset: no background reload.
   */
  refreshMs?: number;
}

interface Flight<T> {
  /** Drawn after every request that arrived before the load started: those may take its value as is. */
  ticket: number;
  promise: Promise<T | null>;
  /** A refresh by age: a request finding a valid entry is served it rather than waiting for this. */
  background: boolean;
}

export function pageCache<T>(opts: PageCacheOptions | number = {}): PageCache<T> {
  const { ttlMs = PAGE_TTL_MS, maxEntries = 2_000, refreshMs } = typeof opts === "number" ? { ttlMs: opts } : opts;
  const byDatabase = new WeakMap<object, Map<string, Entry<T>>>();
  const flightsByDatabase = new WeakMap<object, Map<string, Flight<T>>>();
  let ticket = 0;
  let hits = 0;
  let loads = 0;
  let joined = 0;
  let entries = 0;

  // One load per key at a time. A request may take a load's value only if the load started after
  // the request arrived (its data is then read after any write the request follows); a request that
  // finds an older load waits for it and then checks the versions it kept, one statement.
  const start = (m: Map<string, Entry<T>>, flights: Map<string, Flight<T>>, key: string, load: () => Promise<Loaded<T>>, now: number, background = false): Flight<T> => {
    loads++;
    const flight: Flight<T> = {
      ticket: ++ticket,
      background,
      promise: load()
        .then(({ value, versions }) => {
          m.delete(key);
          if (value === null) return null;
          m.set(key, { value, versions, at: now });
          if (m.size > maxEntries) m.delete(m.keys().next().value as string);
          entries = m.size;
          return value;
        })
        .finally(() => {
          if (flights.get(key) === flight) flights.delete(key);
        }),
    };
    flights.set(key, flight);
    return flight;
  };

  return {
    async get(key, load, now = performance.now()) {
      const arrival = ++ticket;
      const h = await database();
      let m = byDatabase.get(h);
      if (!m) byDatabase.set(h, (m = new Map()));
      let flights = flightsByDatabase.get(h);
      if (!flights) flightsByDatabase.set(h, (flights = new Map()));
      for (;;) {
        const running = flights.get(key);
        if (running && running.ticket > arrival && !running.background) {
          joined++;
          return running.promise;
        }
        const kept = m.get(key);
        if (kept) {
          const current = await readTagVersions(h, Object.keys(kept.versions));
          if (sameVersions(current, kept.versions) && now - kept.at < ttlMs) {
            hits++;
            if (m.get(key) === kept) {
              // Still the newest: refreshed by age once, and most recently used last.
              if (refreshMs !== undefined && now - kept.at >= refreshMs && !flights.has(key)) start(m, flights, key, load, now, true).promise.catch(() => {});
              m.delete(key);
              m.set(key, kept);
            }
            return kept.value;
          }
        }
        const other = flights.get(key);
        if (other && other.ticket > arrival) {
          joined++;
          return other.promise;
        }
        if (other) {
          // Started before this request arrived: its value may predate a write this request follows.
          joined++;
          await other.promise.catch(() => {});
          continue;
        }
        return start(m, flights, key, load, now).promise;
      }
    },
    stats: () => ({ entries, hits, loads, joined }),
  };
}
