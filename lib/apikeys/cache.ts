/**
 * API keys read at most once a second per process and database: a key's row (or its absence) is
 * kept for KEY_CACHE_TTL_MS from the moment its read began, so a revocation made by any process is
 * refused everywhere within that time, and at once by the process that made it (forgetKey). A key
 * in use is read again in the background once its entry is half that old, so a busy key never waits.
 */

/** How long a read key is trusted: the longest a revoked key keeps working in another process. */
export const KEY_CACHE_TTL_MS = 1000;
/** Entries kept per database; the oldest go first (unknown keys are kept too, so a flood is bounded). */
const MAX_ENTRIES = 10_000;

export interface CachedKey {
  id: string;
  name: string;
  scopes: string[];
  revokedAt: Date | null;
  lastUsedAt: Date | null;
}

interface Entry {
  readAt: number;
  row: Promise<CachedKey | null>;
  refreshing?: boolean;
}

/** One map per database client, so two databases in one process (tests) never share a key. */
const byDatabase = new WeakMap<object, Map<string, Entry>>();

function mapOf(database: object): Map<string, Entry> {
  let m = byDatabase.get(database);
  if (!m) byDatabase.set(database, (m = new Map()));
  return m;
}

/** The key with this hash: from a read begun less than KEY_CACHE_TTL_MS ago, else read now. */
export function lookUpKey(database: object, hash: string, read: () => Promise<CachedKey | null>, now = performance.now()): Promise<CachedKey | null> {
  const m = mapOf(database);
  const hit = m.get(hash);
  if (hit && now - hit.readAt < KEY_CACHE_TTL_MS) {
    if (now - hit.readAt >= KEY_CACHE_TTL_MS / 2 && !hit.refreshing) {
      hit.refreshing = true;
      read().then(
        (row) => m.get(hash) === hit && m.set(hash, { readAt: now, row: Promise.resolve(row) }),
        () => (hit.refreshing = false),
      );
    }
    return hit.row;
  }
  if (hit) m.delete(hash);
  const entry: Entry = { readAt: now, row: read() };
  entry.row.catch(() => {
    if (m.get(hash) === entry) m.delete(hash);
  });
  m.set(hash, entry);
  if (m.size > MAX_ENTRIES) m.delete(m.keys().next().value as string);
  return entry.row;
}

/** A revocation here: the next call reads the row again. */
export function forgetKey(database: object, hash: string): void {
  byDatabase.get(database)?.delete(hash);
}
