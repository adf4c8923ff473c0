/**
 * API keys read at most once a second per process and database: a key's row (or its absence) is
 * kept for KEY_CACHE_TTL_MS from the moment its read began, so a revocation made by any process is
 * refused everywhere within that time, and at once by the process that made it (forgetKey). A key
 * in use is read again in the background once its entry is half that old, so a busy key never waits.
 */
import { readCache } from "@/lib/read-cache";

/** How long a read key is trusted: the longest a revoked key keeps working in another process. */
export const KEY_CACHE_TTL_MS = 1000;

export interface CachedKey {
  id: string;
  name: string;
  scopes: string[];
  revokedAt: Date | null;
  lastUsedAt: Date | null;
}

const keys = readCache<CachedKey | null>(KEY_CACHE_TTL_MS);

/** The key with this hash: from a read begun less than KEY_CACHE_TTL_MS ago, else read now (unknown keys are kept too, so a flood is bounded). */
export function lookUpKey(database: object, hash: string, read: () => Promise<CachedKey | null>, now = performance.now()): Promise<CachedKey | null> {
  return keys.get(database, hash, read, now);
}

/** A revocation here: the next call reads the row again. */
export function forgetKey(database: object, hash: string): void {
  keys.forget(database, hash);
}
