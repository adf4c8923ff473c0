/**
 * A read-through cache of database rows per process and database, trusted for `ttlMs` from the moment
 * its read began; an entry in use is read again in the background once half that old, so a busy key
 * never waits. Bounded (the oldest entry goes first); a failed read is never kept.
 */

interface Entry<T> {
  readAt: number;
  value: Promise<T>;
  refreshing?: boolean;
}

export interface ReadCache<T> {
  /** The value under `key`: from a read begun less than ttlMs ago, else read now. */
  get(database: object, key: string, read: () => Promise<T>, now?: number): Promise<T>;
  /** Drop one entry (a write by this process): the next get reads again. */
  forget(database: object, key: string): void;
}

export function readCache<T>(ttlMs: number, maxEntries = 10_000): ReadCache<T> {
  // One map per database client, so two databases in one process (tests) never share an entry.
  const byDatabase = new WeakMap<object, Map<string, Entry<T>>>();
  const mapOf = (database: object) => {
    let m = byDatabase.get(database);
    if (!m) byDatabase.set(database, (m = new Map()));
    return m;
  };
  return {
    get(database, key, read, now = performance.now()) {
      const m = mapOf(database);
      const hit = m.get(key);
      if (hit && now - hit.readAt < ttlMs) {
        if (now - hit.readAt >= ttlMs / 2 && !hit.refreshing) {
          hit.refreshing = true;
          read().then(
            (value) => m.get(key) === hit && m.set(key, { readAt: now, value: Promise.resolve(value) }),
            () => (hit.refreshing = false),
          );
        }
        return hit.value;
      }
      if (hit) m.delete(key);
      const entry: Entry<T> = { readAt: now, value: read() };
      entry.value.catch(() => {
        if (m.get(key) === entry) m.delete(key);
      });
      m.set(key, entry);
      if (m.size > maxEntries) m.delete(m.keys().next().value as string);
      return entry.value;
    },
    forget(database, key) {
      byDatabase.get(database)?.delete(key);
    },
  };
}
