/**
 * A read-through cache of rows per process and database, trusted for `ttlMs` from the read's start and refreshed in
 * the background at half age. Bounded; failed reads are never kept.
 */

interface Entry<T> {
  readAt: number;
  value: Promise<T>;
  refreshing?: boolean;
}

export interface ReadCache<T> {
  get(database: object, key: string, read: () => Promise<T>, now?: number): Promise<T>;
  /** After a write by this process. */
  forget(database: object, key: string): void;
}

export function readCache<T>(ttlMs: number, maxEntries = 10_000): ReadCache<T> {
  // Per database client: two databases in one process never share an entry.
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
