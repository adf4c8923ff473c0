/**
 * Keep-alive connections pinned to checked addresses (safeFetch's `pool`): one undici Agent per (scheme, name, port,
 * addresses, TLS settings). Every request is still validated and resolved first, so a name that moved gets another
 * Agent (docs/SSRF.md).
 */
import { Agent, type buildConnector } from "undici";
import type { TlsInfo } from "./types";

/** From the connector's last connection for this key. */
export interface PooledFacts {
  tls: TlsInfo | null;
  address: string | null;
}

export interface PoolKey {
  protocol: string;
  hostname: string;
  port: string;
  addresses: readonly string[];
  requireValidTls: boolean;
  ca?: string | string[];
  maxHeaderBytes: number;
}

/** A seller's Keep-Alive may shorten it. */
export const POOL_KEEP_ALIVE_MS = 4_000;
/** LRU past this. */
const MAX_AGENTS = 256;

interface Entry {
  agent: Agent;
  facts: PooledFacts;
}

const agents = new Map<string, Entry>();

function keyOf(k: PoolKey): string {
  const ca = k.ca === undefined ? "" : Array.isArray(k.ca) ? k.ca.join("\n") : k.ca;
  return JSON.stringify([k.protocol, k.hostname, k.port, [...k.addresses], k.requireValidTls, ca, k.maxHeaderBytes]);
}

/** The connector dials only the key's addresses. */
export function pooledAgent(k: PoolKey, connector: (facts: PooledFacts) => buildConnector.connector): Entry {
  const key = keyOf(k);
  const hit = agents.get(key);
  if (hit) {
    // Map keeps insertion order: most recent last.
    agents.delete(key);
    agents.set(key, hit);
    return hit;
  }
  const facts: PooledFacts = { tls: null, address: null };
  const entry: Entry = {
    facts,
    agent: new Agent({
      connect: connector(facts),
      maxHeaderSize: k.maxHeaderBytes,
      keepAliveTimeout: POOL_KEEP_ALIVE_MS,
      keepAliveMaxTimeout: POOL_KEEP_ALIVE_MS,
      pipelining: 1,
    }),
  };
  agents.set(key, entry);
  while (agents.size > MAX_AGENTS) {
    const [oldest, e] = agents.entries().next().value as [string, Entry];
    agents.delete(oldest);
    void e.agent.close().catch(() => undefined);
  }
  return entry;
}

/** Tests; a shutdown. */
export async function closePinnedPool(): Promise<void> {
  const all = [...agents.values()];
  agents.clear();
  await Promise.all(all.map((e) => e.agent.close().catch(() => undefined)));
}

/** Tests. */
export function pinnedPoolSize(): number {
  return agents.size;
}
