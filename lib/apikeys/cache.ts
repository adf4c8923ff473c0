/**
 * API key rows (or their absence) cached per process and database for KEY_CACHE_TTL_MS: a revocation holds everywhere
 * within that time, at once in its own process (forgetKey). Busy keys refresh in the background at half age.
 */
import { readCache } from "@/lib/read-cache";

/** The longest a revoked key keeps working in another process. */
export const KEY_CACHE_TTL_MS = 1000;

export interface CachedKey {
  id: string;
  name: string;
  scopes: string[];
  revokedAt: Date | null;
  lastUsedAt: Date | null;
}

const keys = readCache<CachedKey | null>(KEY_CACHE_TTL_MS);

/** Unknown keys are cached too, so a flood is bounded. */
export function lookUpKey(database: object, hash: string, read: () => Promise<CachedKey | null>, now = performance.now()): Promise<CachedKey | null> {
  return keys.get(database, hash, read, now);
}

export function forgetKey(database: object, hash: string): void {
  keys.forget(database, hash);
}
