/**
 * The buyer's guard: before an x402 or MPP payment, Tollgate's signed attestation for the exact URL,
 * payee, network, asset and amount, verified against pinned keys and cached for its lifetime; any
 * difference is a GuardRefusal with a reason code (clients/guard/README.md, docs/ATTESTATIONS.md).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { PaymentRequirements, PaymentRequired } from "@x402/core/types";
import { checkStatement, openEnvelope, resourceKey, type KeySet, type PaymentTerms, type RefusalCode, type Statement } from "./attestation.ts";

export const KEYS_PATH = "/.well-known/tollgate-badge-keys.json";
export const LOOKUP_PATH = "/api/attestations";
const TAG = "tollgate guard refused";

export class GuardRefusal extends Error {
  readonly code: RefusalCode;
  readonly url: string;
  readonly statement?: Statement;
  constructor(code: RefusalCode, sentence: string, url: string, statement?: Statement) {
    super(`${TAG} (${code}): ${sentence}`);
    this.name = "GuardRefusal";
    this.code = code;
    this.url = url;
    this.statement = statement;
  }
  /** The human sentence alone. */
  get sentence(): string {
    return this.message.slice(this.message.indexOf("): ") + 3);
  }
  /** The refusal inside an error a payment client wrapped (its message keeps ours), or null. */
  static from(err: unknown): GuardRefusal | null {
    if (err instanceof GuardRefusal) return err;
    const msg = err instanceof Error ? err.message : "";
    const m = new RegExp(`${TAG} \\(([a-z_]+)\\): (.*)$`, "s").exec(msg);
    return m ? new GuardRefusal(m[1] as RefusalCode, m[2], "") : null;
  }
}

export interface GuardOptions {
  /** Tollgate's origin, e.g. https://tollgate.example. */
  tollgate: string;
  /** Keys to trust, pinned by the caller; without them the guard pins the origin's published keys on first use. */
  keys?: KeySet;
  /** The fetch used to reach Tollgate (never the paying one). */
  fetch?: typeof fetch;
  refuseVerdicts?: readonly string[];
  /** Default 36 hours. */
  maxEvidenceAgeMs?: number;
  /** How long an "unlisted" answer is remembered (default 5 minutes). */
  negativeTtlMs?: number;
  now?: () => number;
}

type Entry = { kind: "attested"; statement: Statement; until: number } | { kind: "refused"; code: RefusalCode; message: string; until: number };

interface CallContext {
  url: string;
  /** Upper-cased. */
  method: string;
  refusal?: GuardRefusal;
}

/** The methods a Tollgate endpoint can be listed with; a payment for another is not for a listed endpoint. */
const LISTABLE_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"];

export interface GuardStats {
  /** Attestation lookups sent to Tollgate, per resource. */
  lookups: Map<string, number>;
  keyFetches: number;
  checks: number;
  refusals: number;
}

export class TollgateGuard {
  readonly stats: GuardStats = { lookups: new Map(), keyFetches: 0, checks: 0, refusals: 0 };
  private readonly origin: string;
  private readonly http: typeof fetch;
  private keys: KeySet | null;
  private readonly pinnedByCaller: boolean;
  private readonly cache = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<Entry>>();
  private readonly als = new AsyncLocalStorage<CallContext>();
  private readonly opts: Required<Pick<GuardOptions, "refuseVerdicts" | "maxEvidenceAgeMs" | "negativeTtlMs" | "now">>;

  constructor(o: GuardOptions) {
    this.origin = new URL(o.tollgate).origin;
    this.http = o.fetch ?? fetch;
    this.keys = o.keys ?? null;
    this.pinnedByCaller = !!o.keys;
    this.opts = { refuseVerdicts: o.refuseVerdicts ?? ["avoid", "down"], maxEvidenceAgeMs: o.maxEvidenceAgeMs ?? 36 * 3_600_000, negativeTtlMs: o.negativeTtlMs ?? 300_000, now: o.now ?? Date.now };
  }

  /** Throws a GuardRefusal unless Tollgate's attestation vouches for exactly these terms; returns the statement. */
  async assert(terms: PaymentTerms): Promise<Statement> {
    this.stats.checks++;
    const entry = await this.entry(terms.url, terms.method);
    const refuse = (code: RefusalCode, message: string, s?: Statement) => {
      this.stats.refusals++;
      return new GuardRefusal(code, message, terms.url, s);
    };
    if (entry.kind === "refused") throw refuse(entry.code, entry.message);
    const r = checkStatement(entry.statement, terms, this.checkOptions());
    if (!r.ok) throw refuse(r.code, r.message, entry.statement);
    return entry.statement;
  }

  /** The same question without throwing. */
  async check(terms: PaymentTerms): Promise<{ ok: true; statement: Statement } | { ok: false; code: RefusalCode; message: string }> {
    try {
      return { ok: true, statement: await this.assert(terms) };
    } catch (e) {
      const r = GuardRefusal.from(e);
      if (!r) throw e;
      return { ok: false, code: r.code, message: r.sentence };
    }
  }

  /**
   * Registers on @x402/fetch's x402Client: a policy that, among a 402's requirements, keeps those a
   * cached attestation vouches for (when any does), and a before-payment hook that refuses the rest.
   */
  x402<C extends { registerPolicy(p: (v: number, r: PaymentRequirements[]) => PaymentRequirements[]): C; onBeforePaymentCreation(h: (ctx: { paymentRequired: PaymentRequired; selectedRequirements: PaymentRequirements }) => Promise<void | { abort: true; reason: string }>): C }>(client: C): C {
    client.registerPolicy((_v, reqs) => {
      const ctx = this.als.getStore();
      const cached = ctx ? this.cache.get(cacheKey(resourceKey(ctx.url), ctx.method)) : undefined;
      if (!ctx || cached?.kind !== "attested" || cached.until <= this.opts.now()) return reqs;
      const vouched = reqs.filter((r) => checkStatement(cached.statement, x402Terms(ctx.url, r, ctx.method), this.checkOptions()).ok);
      return vouched.length ? vouched : reqs;
    });
    client.onBeforePaymentCreation(async ({ paymentRequired, selectedRequirements }) => {
      const ctx = this.als.getStore();
      const claimed = paymentRequired.resource?.url;
      const url = ctx?.url ?? claimed;
      if (!url) throw this.remember(ctx, new GuardRefusal("wrong_endpoint", "the 402 names no resource and the call was not made through guard.fetch", ""));
      if (ctx && claimed && safeKey(claimed) !== resourceKey(ctx.url)) throw this.remember(ctx, new GuardRefusal("wrong_endpoint", `the 402 at ${resourceKey(ctx.url)} claims to be ${claimed}`, ctx.url));
      try {
        await this.assert(x402Terms(url, selectedRequirements, ctx?.method));
      } catch (e) {
        throw this.remember(ctx, e);
      }
    });
    return client;
  }

  /**
   * For mppx's client: pass as `Mppx.create({ ..., onChallenge: guard.mppxOnChallenge })`, and call
   * through guard.fetch(mppx.fetch) so the guard knows the URL being paid.
   */
  readonly mppxOnChallenge = async (challenge: { method: string; intent?: string; request: Record<string, unknown> }): Promise<undefined> => {
    const ctx = this.als.getStore();
    if (!ctx) throw new GuardRefusal("wrong_endpoint", "an MPP payment was not made through guard.fetch, so its URL is unknown", "");
    const req = challenge.request;
    const details = (req.methodDetails ?? {}) as Record<string, unknown>;
    const payTo = String(req.recipient ?? "");
    try {
      // A listing's price is one fixed charge: a subscription or a session is not what was graded.
      if (challenge.intent !== "charge") throw new GuardRefusal("scheme_mismatch", `the MPP challenge's intent is ${challenge.intent === undefined ? "missing" : JSON.stringify(challenge.intent)}; only a one-time charge can be held to the listed price`, ctx.url);
      // Splits send part of the amount elsewhere, so the attested payee would not be the one paid.
      const splits = details.splits ?? req.splits;
      if (splits !== undefined && (!Array.isArray(splits) || splits.some((x) => String((x as { recipient?: unknown } | null)?.recipient ?? "").toLowerCase() !== payTo.toLowerCase()))) {
        throw new GuardRefusal("payto_changed", `the MPP charge splits part of its amount to payees other than ${payTo}`, ctx.url);
      }
      await this.assert({ url: ctx.url, method: ctx.method, scheme: "exact", network: `eip155:${String(details.chainId ?? req.chainId ?? "")}`, asset: String(req.currency ?? ""), payTo, amount: String(req.amount ?? "") });
    } catch (e) {
      throw this.remember(ctx, e);
    }
    return undefined;
  };

  /** Wraps a paying fetch (@x402/fetch's or mppx's): the guard learns each call's URL, and a refusal surfaces as the GuardRefusal itself. */
  fetch<F extends (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>>(paying: F): F {
    return (async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
      const method = (init?.method ?? (typeof input === "object" && "method" in input ? input.method : "GET")).toUpperCase();
      const ctx: CallContext = { url, method };
      try {
        return await this.als.run(ctx, () => paying(input, init));
      } catch (e) {
        throw ctx.refusal ?? GuardRefusal.from(e) ?? e;
      }
    }) as F;
  }

  private remember(ctx: CallContext | undefined, e: unknown): unknown {
    if (ctx && e instanceof GuardRefusal) ctx.refusal = e;
    return e;
  }

  private checkOptions() {
    return { now: this.opts.now(), refuseVerdicts: this.opts.refuseVerdicts, maxEvidenceAgeMs: this.opts.maxEvidenceAgeMs, skewMs: 300_000 };
  }

  private async entry(url: string, method: string | undefined): Promise<Entry> {
    const resource = resourceKey(url);
    const m = method?.toUpperCase();
    const key = cacheKey(resource, m);
    const hit = this.cache.get(key);
    if (hit && hit.until > this.opts.now()) return hit;
    let p = this.inflight.get(key);
    if (!p) {
      p = this.lookup(key, resource, m).finally(() => this.inflight.delete(key));
      this.inflight.set(key, p);
    }
    return p;
  }

  private async lookup(key: string, resource: string, method: string | undefined): Promise<Entry> {
    this.stats.lookups.set(key, (this.stats.lookups.get(key) ?? 0) + 1);
    const now = this.opts.now();
    const refused = (code: RefusalCode, message: string, ttl = 0): Entry => {
      const e: Entry = { kind: "refused", code, message, until: now + ttl };
      if (ttl > 0) this.cache.set(key, e);
      return e;
    };
    if (method !== undefined && !LISTABLE_METHODS.includes(method)) return refused("unlisted", `Tollgate lists no endpoint with method ${method}`);
    let res: Response;
    try {
      res = await this.http(`${this.origin}${LOOKUP_PATH}?url=${encodeURIComponent(resource)}${method ? `&method=${method}` : ""}`, { headers: { accept: "application/json" } });
    } catch (e) {
      return refused("tollgate_unreachable", `Tollgate could not be asked about ${resource}: ${(e as Error).message}`);
    }
    const body = (await res.json().catch(() => null)) as { envelope?: unknown; error?: { reason?: string; message?: string } } | null;
    if (res.status === 404) {
      const reason = body?.error?.reason;
      if (reason === "no_attestation") return refused("unattested", `Tollgate lists ${resource} but has not graded it yet`, this.opts.negativeTtlMs);
      if (reason === "attestation_pending") return refused("listing_changed", `the listing of ${resource} changed after it was graded; no attestation covers it as it is now`, this.opts.negativeTtlMs);
      return refused("unlisted", `Tollgate lists no ${method ? `${method} ` : ""}endpoint at ${resource}`, this.opts.negativeTtlMs);
    }
    if (!res.ok || !body?.envelope) return refused("tollgate_unreachable", `Tollgate answered ${res.status} for ${resource}`);
    const keys = await this.pinnedKeys();
    if (!keys) return refused("tollgate_unreachable", `Tollgate's keys at ${this.origin}${KEYS_PATH} could not be read`);
    const opened = openEnvelope(body.envelope, keys);
    if (!opened.ok) return refused(opened.code, opened.message);
    // An expired statement is remembered like a 404, so an endpoint Tollgate stopped vouching for costs one lookup a while.
    const expires = Date.parse(opened.statement.expiresAt);
    const entry: Entry = { kind: "attested", statement: opened.statement, until: expires > now ? expires : now + this.opts.negativeTtlMs };
    this.cache.set(key, entry);
    return entry;
  }

  /** The caller's keys, or Tollgate's published ones read once and pinned from then on. */
  private async pinnedKeys(): Promise<KeySet | null> {
    if (this.keys || this.pinnedByCaller) return this.keys;
    this.stats.keyFetches++;
    try {
      const res = await this.http(`${this.origin}${KEYS_PATH}`);
      const set = (await res.json()) as KeySet;
      if (!res.ok || !Array.isArray(set?.keys)) return null;
      this.keys = { keys: set.keys };
      return this.keys;
    } catch {
      return null;
    }
  }
}

const safeKey = (u: string) => {
  try {
    return resourceKey(u);
  } catch {
    return u;
  }
};

/** An x402 requirement as the terms the guard checks. */
export function x402Terms(url: string, r: PaymentRequirements, method?: string): PaymentTerms {
  return { url, method, scheme: r.scheme, network: r.network, asset: r.asset, payTo: r.payTo, amount: r.amount };
}

/** One cache entry per method and resource; a lookup without a method is its own entry. */
const cacheKey = (resource: string, method: string | undefined) => `${method ?? "*"} ${resource}`;
