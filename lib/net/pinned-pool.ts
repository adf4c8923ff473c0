/**
 * Keep-alive connections that stay pinned (safeFetch's `pool` option): one undici Agent per
 * (scheme, name, port, checked addresses, TLS settings), reused across requests. Every request is
 * still validated and resolved, and every answer checked, before an Agent is chosen, so a name that
 * now resolves elsewhere gets another Agent (or a refusal) and never the old connection. docs/SSRF.md.
 */
import { Agent, type buildConnector } from "undici";
import type { TlsInfo } from "./types";

/** What the pool's connector learnt when it last opened a connection for this key. */
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

/** An idle connection is closed after this long (a seller's own Keep-Alive may shorten it). */
export const POOL_KEEP_ALIVE_MS = 4_000;
/** Agents kept at once; the least recently used is closed past this. */
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

/**
 * The Agent for this key, made with `connector(facts)` on first use. The connector dials only the
 * key's addresses, so every connection the Agent holds is to an address checked for this key.
 */
export function pooledAgent(k: PoolKey, connector: (facts: PooledFacts) => buildConnector.connector): Entry {
  const key = keyOf(k);
  const hit = agents.get(key);
  if (hit) {
    // Most recently used last: Map keeps insertion order.
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

/** Close every pooled connection (tests; a shutdown). */
export async function closePinnedPool(): Promise<void> {
  const all = [...agents.values()];
  agents.clear();
  await Promise.all(all.map((e) => e.agent.close().catch(() => undefined)));
}

/** How many Agents the pool holds (tests). */
export function pinnedPoolSize(): number {
  return agents.size;
}
