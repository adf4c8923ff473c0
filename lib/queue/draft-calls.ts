/**
 * The form door's draft answers, kept under the seller's organisation for the publish analysis's claim to take
 * (docs/QUEUE.md "One call per endpoint").
 */
import type { ListingDocument } from "@/lib/listing-document/document";
import type { PrefetchedCall } from "@/lib/ops-wire";
import { endpointUrl } from "@/lib/probe";
import { unpaidKey, unpaidRequest } from "@/lib/probe/request";
import { NOW_UTC, rows, type Client } from "@/lib/sql";

/** Long enough for a seller reviewing and publishing at once. */
export const DRAFT_CALLS_TTL_MS = 15 * 60_000;

/** Rows past the window (any organisation's) go first. */
export async function keepDraftCalls(client: Client, organizationId: string, calls: PrefetchedCall[]): Promise<void> {
  await rows(client, `DELETE FROM "intake_draft_calls" WHERE "createdAt" < ${NOW_UTC} - make_interval(secs => $1::double precision) RETURNING "id"`, DRAFT_CALLS_TTL_MS / 1000);
  if (calls.length === 0) return;
  await rows(
    client,
    `INSERT INTO "intake_draft_calls" ("organizationId", "key", "call", "createdAt")
     SELECT $1, c."key", c."call"::jsonb, ${NOW_UTC} FROM unnest($2::text[], $3::text[]) AS c("key", "call") RETURNING "id"`,
    organizationId,
    calls.map((c) => sameRequest(c.key)),
    calls.map((c) => JSON.stringify(c)),
  );
}

/** Body keys sorted: jsonb reorders the saved examples' keys. */
export function sameRequest(key: string): string {
  const [method, url] = key.split(" ", 2);
  const body = key.slice(method.length + url.length + 2);
  if (body === "") return key;
  try {
    return `${method} ${url} ${JSON.stringify(sorted(JSON.parse(body)))}`;
  } catch {
    return key;
  }
}

function sorted(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sorted);
  if (v === null || typeof v !== "object") return v;
  return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted((v as Record<string, unknown>)[k])]));
}

/** Keyed by sameRequest. */
export function probeKeys(doc: ListingDocument): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of doc.endpoints) {
    const key = unpaidKey(unpaidRequest(e.method, endpointUrl(doc.baseUrl, e.path), e.requestExample));
    out.set(sameRequest(key), key);
  }
  return out;
}

/** The newest per request, keyed as the probe will ask; deleted as taken. */
export async function takeDraftCalls(client: Client, listingId: string, doc: ListingDocument): Promise<PrefetchedCall[]> {
  const keys = probeKeys(doc);
  const taken = await rows<{ key: string; call: PrefetchedCall; createdAt: Date }>(
    client,
    `DELETE FROM "intake_draft_calls" d USING "listings" l
     WHERE l."id" = $1 AND d."organizationId" = l."organizationId" AND d."key" = ANY($2::text[])
       AND d."createdAt" >= ${NOW_UTC} - make_interval(secs => $3::double precision)
     RETURNING d."key", d."call", d."createdAt"`,
    listingId,
    [...keys.keys()],
    DRAFT_CALLS_TTL_MS / 1000,
  );
  const newest = new Map<string, { call: PrefetchedCall; at: number }>();
  for (const t of taken) {
    const at = new Date(t.createdAt).getTime();
    const call = typeof t.call === "string" ? (JSON.parse(t.call) as PrefetchedCall) : t.call;
    if ((newest.get(t.key)?.at ?? -Infinity) < at) newest.set(t.key, { call: { ...call, key: keys.get(t.key)! }, at });
  }
  return [...newest.values()].map((n) => n.call);
}
