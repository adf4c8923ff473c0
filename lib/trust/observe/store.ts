/** Writing trust observations in the caller's transaction with their source row; each write settles the endpoint's revision (docs/TRUST.md "Observations"). */
import crypto from "node:crypto";
import { listedPrice, type ListedPrice } from "@/lib/amounts";
import type { ProbeEvidence } from "@/lib/evidence";
import { endpointUrlKey, urlKey } from "@/lib/listing-document/endpoint-url";
import { isoOf, randomRowId, rows, utcParam, type Client } from "@/lib/sql";
import type { CheckKind } from "@/lib/trust/observation";
import { readAssetDomains, type DomainRead } from "./chain";
import { wellKnownWallets } from "./operator";
import { freeObservations, quoteOf, type Draft, type ListedEndpoint, type PastQuote } from "./free";
import { paidObservations, PAID_CHECKS, type OutputFacts, type SampleFacts } from "./paid";
import { canonicalJson } from "./reference";
import { rollUp } from "./rollups";
import { loadRubric } from "@/lib/trust/engine";

export type ObservationSource = "analysis" | "monitor" | "canary";

interface EndpointKey {
  listingId: string;
  method: string;
  path: string;
}

export interface EndpointState {
  listedPrice: ListedPrice | null;
  /** Lower-cased; null when unknown at this write. */
  payTo: string | null;
  descriptionSha256: string;
  schemasSha256: string;
  /** The endpoint's URL as listed (endpointUrlKey); null when unknown at this write. */
  url: string | null;
}

const sha = (s: string) => crypto.createHash("sha256").update(s).digest("hex");

export function stateOf(
  e: Pick<ListedEndpoint, "path" | "description" | "requestSchema" | "responseSchema" | "priceAmount" | "priceAsset" | "priceNetwork" | "priceMode">,
  payTo: string | null,
  baseUrl: string | null,
): EndpointState {
  return {
    listedPrice: listedPrice(e),
    payTo: payTo ? payTo.toLowerCase() : null,
    descriptionSha256: sha(e.description ?? ""),
    schemasSha256: sha(canonicalJson({ request: e.requestSchema ?? null, response: e.responseSchema ?? null })),
    url: baseUrl === null ? null : endpointUrlKey(baseUrl, e.path),
  };
}

/** "price", "payTo" (only when both are known), "description", "schemas", "url" (only when both are known). */
export function changesBetween(before: EndpointState, after: EndpointState): string[] {
  const out: string[] = [];
  if (canonicalJson(before.listedPrice) !== canonicalJson(after.listedPrice)) out.push("price");
  if (before.payTo && after.payTo && before.payTo !== after.payTo) out.push("payTo");
  if (before.descriptionSha256 !== after.descriptionSha256) out.push("description");
  if (before.schemasSha256 !== after.schemasSha256) out.push("schemas");
  if (before.url && after.url && before.url !== after.url) out.push("url");
  return out;
}

/** The base URL of a scored document, when it has one. */
const documentBaseUrl = (doc: unknown): string | null => {
  const b = (doc as { baseUrl?: unknown } | null)?.baseUrl;
  return typeof b === "string" ? b : null;
};

/** One endpoint of a scored document (lib/listing-document/document.ts). */
function documentEndpoint(doc: unknown, method: string, path: string): Omit<ListedEndpoint, "id" | "payable"> | null {
  const eps = (doc as { endpoints?: unknown })?.endpoints;
  if (!Array.isArray(eps)) return null;
  const e = eps.find((x) => x && typeof x === "object" && (x as { method?: unknown }).method === method && (x as { path?: unknown }).path === path) as Record<string, unknown> | undefined;
  if (!e) return null;
  const pricing = (e.pricing ?? {}) as { machine?: { amount?: string; asset?: string; network?: string } | null; mode?: string | null };
  const machine = pricing.machine ?? null;
  return {
    method,
    path,
    description: (e.description as string | null) ?? null,
    requestSchema: e.requestSchema ?? null,
    responseSchema: e.responseSchema ?? null,
    priceAmount: machine?.amount ?? null,
    priceAsset: machine?.asset ?? null,
    priceNetwork: machine?.network ?? null,
    priceMode: pricing.mode ?? null,
  };
}

type RevisionRow = { revision: number; startedAt: string; listedPrice: EndpointState["listedPrice"]; payTo: string | null; descriptionSha256: string | null; schemasSha256: string | null; url: string | null };

async function insertRevision(tx: Client, key: EndpointKey, revision: number, startedAt: string, changes: string[], state: EndpointState, derivedFrom: string, note: string | null = null): Promise<void> {
  await rows(
    tx,
    `INSERT INTO "trust_endpoint_revisions" ("listingId", "method", "path", "revision", "startedAt", "changes", "note", "listedPrice", "payTo", "descriptionSha256", "schemasSha256", "derivedFrom", "url")
     VALUES ($1, $2, $3, $4, ${utcParam(5)}, $6::text[], $12, $7::jsonb, $8, $9, $10, $11, $13) RETURNING "revision"`,
    key.listingId, key.method, key.path, revision, startedAt, changes, JSON.stringify(state.listedPrice), state.payTo, state.descriptionSha256, state.schemasSha256, derivedFrom, note, state.url,
  );
}

/** The seller's note from the save that last changed the listed price (lib/listings/save.ts); cleared by an unnoted change. */
export interface PriceChangeNote {
  note: string;
  at: string;
}

/** The endpoint's revision at this write; `listingChangedAt` is when listed fields last changed. */
export interface EndpointHistory {
  revision: number;
  /** Quotes of the 30 days up to the write, oldest first (H2, H3). */
  pastQuotes: PastQuote[];
  noted: Array<{ startedAt: string; note: string }>;
  /** When the endpoint's current URL was first listed (its latest `url` revision); null if it never moved. */
  urlSince: string | null;
}

/** One statement: latest revision, last payTo and URL seen, 30 days of quotes, noted price revisions, the last move. */
async function endpointContext(tx: Client, key: EndpointKey, at: string) {
  const k = `"listingId" = $1 AND "method" = $2 AND "path" = $3`;
  const [row] = await rows<{ latest: RevisionRow | null; seenPayTo: string | null; seenUrl: string | null; urlSince: string | null; pastQuotes: PastQuote[]; noted: Array<{ startedAt: string; note: string }> }>(
    tx,
    `SELECT
       (SELECT row_to_json(r) FROM (SELECT "revision", ${isoOf(`"startedAt"`)} AS "startedAt", "listedPrice", "payTo", "descriptionSha256", "schemasSha256", "url"
          FROM "trust_endpoint_revisions" WHERE ${k} ORDER BY "revision" DESC LIMIT 1) r) AS "latest",
       (SELECT "receipt"->>'payTo' FROM "trust_observations" WHERE ${k} AND "check" = 'H3' AND "receipt" ? 'payTo'
          ORDER BY "observedAt" DESC, "createdAt" DESC LIMIT 1) AS "seenPayTo",
       (SELECT "receipt"->>'url' FROM "trust_observations" WHERE ${k} AND "check" = 'R1' AND "receipt"->>'url' IS NOT NULL
          ORDER BY "observedAt" DESC, "createdAt" DESC LIMIT 1) AS "seenUrl",
       (SELECT ${isoOf(`max("startedAt")`)} FROM "trust_endpoint_revisions" WHERE ${k} AND 'url' = ANY("changes")) AS "urlSince",
       (SELECT coalesce(json_agg(q ORDER BY q."at"), '[]'::json) FROM (
          SELECT ${isoOf(`"observedAt"`)} AS "at", "receipt"->'quote'->>'amount' AS "amount", "receipt"->'quote'->>'asset' AS "asset",
                 "receipt"->'quote'->>'network' AS "network", "receipt"->'quote'->>'payTo' AS "payTo"
          FROM "trust_observations" WHERE ${k} AND "check" = 'H1' AND "receipt" ? 'quote'
            AND "observedAt" >= (${utcParam(4)} - interval '30 days') AND "observedAt" <= ${utcParam(4)}) q) AS "pastQuotes",
       (SELECT coalesce(json_agg(n), '[]'::json) FROM (
          SELECT ${isoOf(`"startedAt"`)} AS "startedAt", "note" FROM "trust_endpoint_revisions" WHERE ${k} AND 'price' = ANY("changes") AND "note" IS NOT NULL) n) AS "noted"`,
    key.listingId, key.method, key.path, at,
  );
  return row;
}

export async function settleRevision(
  tx: Client,
  key: EndpointKey & { listedPath?: string },
  current: EndpointState,
  at: string,
  derivedFrom: string,
  listing: { createdAt: string; updatedAt: string },
  priceNote: PriceChangeNote | null = null,
): Promise<EndpointHistory> {
  await rows(tx, `SELECT true AS "locked" FROM pg_advisory_xact_lock(hashtextextended($1, 7402))`, `trust:${key.listingId} ${key.method} ${key.path}`);
  const ctx = await endpointContext(tx, key, at);
  // With one this write starts: H2 reads it in this very observation.
  const noted = [...ctx.noted];
  let urlSince = ctx.urlSince;
  const history = (revision: number): EndpointHistory => ({ revision, pastQuotes: ctx.pastQuotes, noted, urlSince });
  const latest = ctx.latest;
  const clamp = (t: string, floor: string) => (t < floor ? floor : t > at ? (at < floor ? floor : at) : t);
  if (!latest) {
    // First sight: the scored documents are the endpoint's history.
    const docs = await rows<{ id: string; createdAt: string; document: unknown }>(
      tx,
      `SELECT "id", ${isoOf(`"createdAt"`)} AS "createdAt", "document" FROM "catalog_scoring_results" WHERE "listingId" = $1 ORDER BY "createdAt", "id"`,
      key.listingId,
    );
    const planned: Array<{ startedAt: string; changes: string[]; state: EndpointState; derivedFrom: string; scoredAt: string | null }> = [];
    let last: EndpointState | null = null;
    let lastStart = listing.createdAt;
    for (const d of docs) {
      const e = documentEndpoint(d.document, key.method, key.listedPath ?? key.path);
      if (!e) continue;
      const s = stateOf(e, current.payTo, documentBaseUrl(d.document));
      if (!last) {
        planned.push({ startedAt: listing.createdAt, changes: [], state: s, derivedFrom: `scored_document:${d.id}`, scoredAt: d.createdAt });
      } else {
        const changes = changesBetween(last, s);
        if (changes.length === 0) continue;
        lastStart = clamp(d.createdAt, lastStart);
        planned.push({ startedAt: lastStart, changes, state: s, derivedFrom: `scored_document:${d.id}`, scoredAt: d.createdAt });
      }
      last = s;
    }
    if (!last) planned.push({ startedAt: listing.createdAt, changes: [], state: current, derivedFrom, scoredAt: null });
    else {
      const changes = changesBetween(last, current);
      if (changes.length > 0) planned.push({ startedAt: clamp(listing.updatedAt, lastStart), changes, state: current, derivedFrom: "listing", scoredAt: null });
    }
    // The note belongs to the last price revision if it is the listing as it stands or scored after the save.
    const lastPrice = planned.findLastIndex((p) => p.changes.includes("price"));
    const noteAt =
      priceNote && lastPrice >= 0 && canonicalJson(planned[lastPrice]!.state.listedPrice) === canonicalJson(current.listedPrice) && (planned[lastPrice]!.scoredAt === null || planned[lastPrice]!.scoredAt! >= priceNote.at)
        ? lastPrice
        : -1;
    for (const [i, p] of planned.entries()) {
      await insertRevision(tx, key, i + 1, p.startedAt, p.changes, p.state, p.derivedFrom, i === noteAt ? priceNote!.note : null);
      if (i === noteAt) noted.push({ startedAt: p.startedAt, note: priceNote!.note });
    }
    return history(planned.length);
  }
  // A revision's own payTo may predate a first sighting.
  const before: EndpointState = {
    listedPrice: latest.listedPrice,
    payTo: ctx.seenPayTo ?? latest.payTo,
    descriptionSha256: latest.descriptionSha256 ?? "",
    schemasSha256: latest.schemasSha256 ?? "",
    // Rows written before revisions kept the URL: the URL the last probe called.
    url: latest.url ?? (ctx.seenUrl ? urlKey(ctx.seenUrl) : null),
  };
  const changes = changesBetween(before, current);
  if (changes.length === 0) return history(latest.revision);
  // Listed fields changed when the listing was saved; a payTo when it was seen.
  const startedAt = changes.every((c) => c === "payTo") ? clamp(at, latest.startedAt) : clamp(listing.updatedAt, latest.startedAt);
  // The note of the save that last changed the price is this change's (an unnoted one would clear it).
  const note = changes.includes("price") && priceNote ? priceNote.note : null;
  await insertRevision(tx, key, latest.revision + 1, startedAt, changes, { ...current, payTo: current.payTo ?? before.payTo, url: current.url ?? before.url }, changes.includes("payTo") ? derivedFrom : "listing", note);
  if (note !== null) noted.push({ startedAt, note });
  if (changes.includes("url")) urlSince = startedAt;
  return history(latest.revision + 1);
}

interface Row {
  id: string;
  listingId: string;
  endpointId: string;
  method: string;
  path: string;
  check: string;
  kind: CheckKind;
  outcome: string;
  value: number | null;
  observedAt: string;
  vantage: string;
  revision: number;
  receipt: Record<string, unknown>;
  source: ObservationSource;
  sourceId: string;
}

const PAID = new Set<string>(PAID_CHECKS);

/** One statement, one JSON parameter: the same on PGlite and a server. */
async function insertRows(tx: Client, list: Row[]): Promise<number> {
  if (list.length === 0) return 0;
  const inserted = await rows<{ id: string }>(
    tx,
    `INSERT INTO "trust_observations" ("id", "listingId", "endpointId", "method", "path", "check", "kind", "outcome", "value", "observedAt", "vantage", "revision", "receipt", "source", "sourceId")
     SELECT x."id", x."listingId", x."endpointId", x."method", x."path", x."check", x."kind", x."outcome", x."value",
            (x."observedAt"::timestamptz AT TIME ZONE 'UTC'), x."vantage", x."revision", x."receipt", x."source", x."sourceId"
     FROM jsonb_to_recordset($1::jsonb) AS x("id" text, "listingId" text, "endpointId" text, "method" text, "path" text, "check" text, "kind" text,
       "outcome" text, "value" float8, "observedAt" text, "vantage" text, "revision" int, "receipt" jsonb, "source" text, "sourceId" text)
     RETURNING "id"`,
    JSON.stringify(list),
  );
  const touched = new Map<string, { key: EndpointKey; at: string[] }>();
  for (const r of list) {
    const k = `${r.listingId} ${r.method} ${r.path}`;
    const e = touched.get(k) ?? touched.set(k, { key: { listingId: r.listingId, method: r.method, path: r.path }, at: [] }).get(k)!;
    e.at.push(r.observedAt);
  }
  for (const { key, at } of touched.values()) await rollUp(tx, loadRubric(), key, at);
  return inserted.length;
}

function rowsOf(drafts: Draft[], base: Omit<Row, "id" | "check" | "kind" | "outcome" | "value" | "receipt">): Row[] {
  return drafts.map((d) => ({ ...base, id: randomRowId("o"), check: d.check, kind: PAID.has(d.check) ? "paid" : "free", outcome: d.outcome, value: d.value, receipt: d.receipt }));
}

type ListingRow = { id: string; organizationId: string; baseUrl: string; title: string; shortDescription: string | null; description: string | null; authPreconditions: string | null; createdAt: string; updatedAt: string };
type EndpointRow = ListedEndpoint & { trustPath: string; priceChangeNote: string | null; priceChangeNoteAt: string | null };

const noteOf = (e: EndpointRow): PriceChangeNote | null => (e.priceChangeNote && e.priceChangeNoteAt ? { note: e.priceChangeNote, at: e.priceChangeNoteAt } : null);

async function loadListing(tx: Client, listingId: string): Promise<{ listing: ListingRow; endpoints: EndpointRow[]; wallets: string[] } | null> {
  const [row] = await rows<ListingRow & { endpoints: EndpointRow[]; wallets: string[] }>(
    tx,
    `SELECT l."id", l."organizationId", l."baseUrl", l."title", l."shortDescription", l."description", l."authPreconditions",
            ${isoOf(`l."createdAt"`)} AS "createdAt", ${isoOf(`l."updatedAt"`)} AS "updatedAt",
            (SELECT coalesce(json_agg(e ORDER BY e."position"), '[]'::json) FROM (
               SELECT "id", "position", "method"::text AS "method", "path", "trustPath", "payable", "description", "requestSchema", "responseSchema",
                      "priceAmount", "priceAsset", "priceNetwork", "priceMode"::text AS "priceMode",
                      "priceChangeNote", ${isoOf(`"priceChangeNoteAt"`)} AS "priceChangeNoteAt"
               FROM "endpoints" WHERE "listingId" = l."id") e) AS "endpoints",
            (SELECT coalesce(json_agg(lower(u."walletAddress") ORDER BY lower(u."walletAddress")), '[]'::json)
               FROM "users" u WHERE u."organizationId" = l."organizationId" AND u."walletAddress" IS NOT NULL) AS "wallets"
     FROM "listings" l WHERE l."id" = $1`,
    listingId,
  );
  if (!row) return null;
  const { endpoints, wallets, ...listing } = row;
  return { listing, endpoints, wallets };
}

/** C3's chain reads, before the probe's transaction opens. */
export async function prepareProbeObservations(evidence: ProbeEvidence): Promise<Map<string, DomainRead>> {
  return readAssetDomains(evidence.endpoints.flatMap((e) => e.challenge.requirements ?? []));
}

/** A probe's free checks, in the caller's transaction with its source row. */
export async function recordProbeObservations(
  tx: Client,
  input: { listingId: string; evidence: ProbeEvidence; source: "analysis" | "monitor"; sourceId: string; domains: ReadonlyMap<string, DomainRead> },
): Promise<{ written: number }> {
  const loaded = await loadListing(tx, input.listingId);
  if (!loaded) return { written: 0 };
  const { listing, endpoints, wallets } = loaded;
  const wellKnown = await wellKnownWallets(input.evidence.discovery, listing.baseUrl);
  const at = new Date(input.evidence.probedAt).toISOString();
  const byKey = new Map(input.evidence.endpoints.map((e) => [`${e.method} ${e.path}`, e]));
  const all: Row[] = [];
  for (const listed of endpoints) {
    const ev = byKey.get(`${listed.method} ${listed.path}`);
    if (!ev) continue; // not called by the probe: nothing observed
    // A probe begun before the base URL changed called the server the listing no longer lists.
    if (urlKey(ev.url) !== endpointUrlKey(listing.baseUrl, listed.path)) continue;
    const key = { listingId: listing.id, method: listed.method, path: listed.trustPath, listedPath: listed.path };
    const quote = ev.challenge.kind.startsWith("x402") ? quoteOf(ev.challenge.requirements, listed) : null;
    const { revision, pastQuotes, noted } = await settleRevision(tx, key, stateOf(listed, quote?.payTo ?? null, listing.baseUrl), at, `${input.source}:${input.sourceId}`, listing, noteOf(listed));
    const drafts = freeObservations(ev, listed, {
      listing,
      operatorWallets: wallets,
      wellKnown,
      pastQuotes,
      notedPriceChanges: noted,
      domains: input.domains,
      observedAt: at,
    });
    all.push(...rowsOf(drafts, { listingId: listing.id, endpointId: listed.id, method: listed.method, path: listed.trustPath, observedAt: at, vantage: input.evidence.vantage || input.source, revision, source: input.source, sourceId: input.sourceId }));
  }
  return { written: await insertRows(tx, all) };
}

const SAMPLE_COLUMNS = `"id", "listingId", "endpointId", "method", "path", "authorizationNonce", "quotedAmount", "quotedPayTo", "quotedAsset", "quotedNetwork",
  "paymentId", "paymentStatus", "transactionId", "chainAmount", "chainTo", "chainNetwork", "chainAsset", "blockNumber"::text AS "blockNumber",
  "httpStatus", "ttlbMs", "responseBytes", "contentType", "outputSha256", "schemaValid", "replay", "replayStatus", "outcome"::text AS "outcome", "reason",
  "state"::text AS "state", ${isoOf(`"createdAt"`)} AS "createdAt", ${isoOf(`"completedAt"`)} AS "completedAt"`;

/** A completed sample's paid checks, in its transaction; `output` null for a reconciled sample. */
export async function recordSampleObservations(tx: Client, sampleId: string, output: OutputFacts | null, vantage = "canary"): Promise<{ written: number }> {
  return recordSamplesObservations(tx, [{ sampleId, output }], vantage);
}

type SampleRow = SampleFacts & { listingId: string; endpointId: string; method: string; path: string; state: string; createdAt: string; completedAt: string | null };

/** Completed samples' paid checks, in their transaction: one read of the samples, one of each listing, one insert (docs/CANARY.md "Batched writes"). */
export async function recordSamplesObservations(tx: Client, samples: Array<{ sampleId: string; output: OutputFacts | null }>, vantage = "canary"): Promise<{ written: number }> {
  if (samples.length === 0) return { written: 0 };
  const read = await rows<SampleRow>(tx, `SELECT ${SAMPLE_COLUMNS} FROM "canary_samples" WHERE "id" = ANY ($1::text[])`, samples.map((x) => x.sampleId));
  const byId = new Map(read.map((s) => [s.id, s]));
  const listings = new Map<string, Awaited<ReturnType<typeof loadListing>>>();
  const all: Row[] = [];
  for (const { sampleId, output } of samples) {
    const s = byId.get(sampleId);
    if (!s || s.state !== "completed" || !s.completedAt) throw new Error(`canary sample ${sampleId} is not completed: its paid observations cannot be written`);
    const drafts = paidObservations(s, output);
    if (drafts.length === 0) continue;
    if (!listings.has(s.listingId)) listings.set(s.listingId, await loadListing(tx, s.listingId));
    const loaded = listings.get(s.listingId);
    if (!loaded) continue;
    const listed = loaded.endpoints.find((e) => e.method === s.method && e.trustPath === s.path);
    const key = { listingId: s.listingId, method: s.method, path: s.path, listedPath: listed?.path };
    const settled = listed ? await settleRevision(tx, key, stateOf(listed, s.quotedPayTo, loaded.listing.baseUrl), s.completedAt, `canary:${s.id}`, loaded.listing, noteOf(listed)) : null;
    // A sample begun before the endpoint moved paid the server the listing no longer lists.
    if (settled?.urlSince && s.createdAt < settled.urlSince) continue;
    const revision = settled ? settled.revision : await latestRevision(tx, key);
    const endpointId = listed?.id ?? s.endpointId;
    all.push(...rowsOf(drafts, { listingId: s.listingId, endpointId, method: s.method, path: s.path, observedAt: s.completedAt, vantage, revision, source: "canary", sourceId: s.id }));
  }
  return { written: await insertRows(tx, all) };
}

async function latestRevision(tx: Client, key: EndpointKey): Promise<number> {
  const [r] = await rows<{ revision: number }>(tx, `SELECT max("revision") AS "revision" FROM "trust_endpoint_revisions" WHERE "listingId" = $1 AND "method" = $2 AND "path" = $3`, key.listingId, key.method, key.path);
  return r?.revision ?? 1;
}
