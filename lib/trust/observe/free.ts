/** The free checks (R1–R3, C1–C5, H1–H4, S1, S2, S4, S5) of one endpoint from probe evidence in hand; pure (docs/TRUST.md "Observations"). */
import { listedPrice } from "@/lib/amounts";
import type { EndpointEvidence, Finding, NormalisedRequirement } from "@/lib/evidence";
import { screenText, type ScreenMatch } from "@/lib/screen";
import type { CheckId, Outcome } from "@/lib/trust/observation";
import type { DomainRead } from "./chain";
import type { WellKnownWallets } from "./operator";

/** Before store.ts adds endpoint id, revision and source. */
export interface Draft {
  check: CheckId;
  outcome: Outcome;
  value: number | null;
  receipt: Record<string, unknown>;
}

/** R1: "A TLS connection and an HTTP response within 10 s". */
export const R1_WITHIN_MS = 10_000;
/** H2, H3: "in 30 days". */
export const STABLE_WINDOW_DAYS = 30;

export interface ListedEndpoint {
  id: string;
  method: string;
  path: string;
  payable: boolean;
  description: string | null;
  requestSchema: unknown;
  responseSchema: unknown;
  priceAmount: string | null;
  priceAsset: string | null;
  priceNetwork: string | null;
  priceMode: string | null;
}

export interface ListingTexts {
  title: string;
  shortDescription: string | null;
  description: string | null;
  authPreconditions: string | null;
}

export interface PastQuote {
  at: string;
  amount: string;
  asset: string;
  network: string;
  payTo: string;
}

export interface FreeContext {
  listing: ListingTexts;
  /** The listing owner's linked Sign-In-with-Ethereum wallets, lower-cased (H4); empty when none. */
  operatorWallets: string[];
  wellKnown: WellKnownWallets | null;
  /** Within 30 days, oldest first (H2, H3). */
  pastQuotes: PastQuote[];
  notedPriceChanges: Array<{ startedAt: string; note: string }>;
  domains: ReadonlyMap<string, DomainRead>;
  observedAt: string;
}

const same = (a: string | null | undefined, b: string | null | undefined) => !!a && !!b && a.toLowerCase() === b.toLowerCase();

/** The quote: the `exact` requirement in the listed network and asset, else any there, else (unlisted price) the first; null when none there. */
export function quoteOf(requirements: readonly NormalisedRequirement[] | undefined, e: Pick<ListedEndpoint, "priceAsset" | "priceNetwork">): NormalisedRequirement | null {
  const reqs = requirements ?? [];
  if (!e.priceNetwork || !e.priceAsset) return reqs[0] ?? null;
  const listed = reqs.filter((r) => r.network === e.priceNetwork && same(r.asset, e.priceAsset));
  return listed.find((r) => r.scheme === "exact") ?? listed[0] ?? null;
}

export function domainKey(network: string, asset: string, name: unknown, version: unknown): string {
  return `${network}|${asset.toLowerCase()}|${String(name)}|${String(version)}`;
}

const findingsOf = (e: EndpointEvidence, check: string) => e.findings.filter((f) => f.check === check);
const failed = (fs: Finding[]) => fs.some((f) => f.severity === "fail");
const brief = (fs: Finding[]) => fs.map((f) => ({ severity: f.severity, code: f.code, message: f.message, ...(f.pointer ? { pointer: f.pointer } : {}) }));

/** What S2 and S4 screen: the listing's words and every string the 402 publishes. */
export function screenedTexts(e: EndpointEvidence | null, listed: ListedEndpoint, listing: ListingTexts): Array<{ where: string; text: string }> {
  const out: Array<{ where: string; text: string }> = [];
  const add = (where: string, text: string | null | undefined) => {
    if (text && text.trim()) out.push({ where, text });
  };
  add("/listing/title", listing.title);
  add("/listing/shortDescription", listing.shortDescription);
  add("/listing/description", listing.description);
  add("/listing/authPreconditions", listing.authPreconditions);
  add(`/endpoint/description`, listed.description);
  const walk = (v: unknown, at: string, depth: number) => {
    if (depth > 24 || out.length > 500) return;
    if (typeof v === "string") add(at, v);
    else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${at}/${i}`, depth + 1));
    else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) walk(x, `${at}/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`, depth + 1);
  };
  if (e?.challenge.x402 !== undefined) walk(e.challenge.x402, "/402", 0);
  return out;
}

function screen(texts: Array<{ where: string; text: string }>, kinds: ReadonlyArray<ScreenMatch["kind"]>): Array<ScreenMatch & { where: string }> {
  const out: Array<ScreenMatch & { where: string }> = [];
  for (const t of texts) for (const m of screenText(t.text)) if (kinds.includes(m.kind)) out.push({ ...m, where: t.where });
  return out;
}

/** Null evidence: the probe did not reach this endpoint. */
export function freeObservations(e: EndpointEvidence | null, listed: ListedEndpoint, ctx: FreeContext): Draft[] {
  const drafts: Draft[] = [];
  const put = (check: CheckId, outcome: Outcome, receipt: Record<string, unknown>, value: number | null = null) => drafts.push({ check, outcome, value, receipt });
  const answered = !!e && e.status !== null && !e.refusal;
  const refused = !!e?.refusal;
  const where = e ? { url: e.url, status: e.status } : { url: null, status: null };

  // --- works: R1–R3 ---
  if (!e) put("R1", "unmeasured", { reason: "the probe made no call to this endpoint" });
  else if (refused) put("R1", "fail", { ...where, refusal: e.refusal, findings: brief(findingsOf(e, "R1")) });
  else if (e.reachable && e.ttfbMs !== null && e.ttfbMs <= R1_WITHIN_MS) put("R1", "pass", { ...where, ttfbMs: e.ttfbMs });
  else put("R1", "fail", { ...where, ttfbMs: e.ttfbMs, findings: brief(findingsOf(e, "R1")) });

  if (!listed.payable) put("R2", "na", { reason: "the endpoint is listed as free (not payable)" });
  else if (!answered) put("R2", "unmeasured", { ...where, reason: refused ? "refused before any request" : "no answer to judge (R1 records it)" });
  else put("R2", e!.status === 402 ? "pass" : "fail", { ...where, findings: brief(findingsOf(e!, "R2")) });

  // R3: time to the unpaid response's first byte.
  if (!listed.payable) put("R3", "na", { reason: "the endpoint is listed as free (not payable)" });
  else if (!e || refused) put("R3", "unmeasured", { ...where, reason: refused ? "refused before any request" : "not probed" });
  else if (e.ttfbMs === null) put("R3", "fail", { ...where, reason: "no first byte within the probe's deadline (a timeout: no latency value)" });
  else put("R3", "pass", { ...where, ttfbMs: e.ttfbMs, measure: "time to first byte (response head) of the unpaid request" }, e.ttfbMs);

  // --- works: C1–C5, on the 402 ---
  const x402 = !!e && (e.challenge.kind === "x402-v1" || e.challenge.kind === "x402-v2");
  const c = (check: CheckId, fn: () => void) => {
    if (!listed.payable) put(check, "na", { reason: "the endpoint is listed as free (not payable)" });
    else if (!answered) put(check, "unmeasured", { ...where, reason: "no answer to read a 402 from" });
    else if (e!.status !== 402) put(check, "unmeasured", { ...where, reason: `the unpaid request answered ${e!.status}, not 402 (R2 records it)` });
    else if (e!.challenge.kind === "mpp") put(check, "na", { ...where, reason: "the 402 carries an MPP challenge only; the x402 checks do not apply" });
    else fn();
  };
  const c1Failed = !x402 || failed(findingsOf(e!, "C1"));
  const decoded = e?.challenge.x402 ?? null;
  c("C1", () => put("C1", c1Failed ? "fail" : "pass", { ...where, kind: e!.challenge.kind, findings: brief(findingsOf(e!, "C1")), paymentRequired: decoded }));
  c("C2", () => {
    const fs = findingsOf(e!, "C2");
    if (failed(fs)) put("C2", "fail", { ...where, findings: brief(fs), requirements: e!.challenge.requirements ?? [] });
    else if (c1Failed) put("C2", "unmeasured", { ...where, reason: "the PaymentRequired did not parse (C1)" });
    else put("C2", "pass", { ...where, requirements: e!.challenge.requirements ?? [] });
  });
  const quote = e ? quoteOf(e.challenge.requirements, listed) : null;
  c("C3", () => {
    const fs = findingsOf(e!, "C3");
    if (failed(fs)) return put("C3", "fail", { ...where, findings: brief(fs) });
    if (c1Failed || !quote) return put("C3", "unmeasured", { ...where, reason: c1Failed ? "the PaymentRequired did not parse (C1)" : "no requirement in the listed network and asset" });
    if (fs.some((f) => f.code === "asset_unverified")) return put("C3", "unmeasured", { ...where, findings: brief(fs), reason: "no asset table entry for this network" });
    const read = ctx.domains.get(domainKey(quote.network, quote.asset, quote.extra?.name, quote.extra?.version));
    const asset = { network: quote.network, asset: quote.asset, name: quote.extra?.name ?? null, version: quote.extra?.version ?? null };
    if (!read) return put("C3", "unmeasured", { ...where, ...asset, reason: "the contract's EIP-712 domain was not read" });
    if (!read.ok) return put("C3", "unmeasured", { ...where, ...asset, reason: read.unmeasured });
    put("C3", read.matches ? "pass" : "fail", { ...where, ...asset, table: "lib/x402/assets.ts", expectedDomainSeparator: read.expected, contractDomainSeparator: read.onChain, ...(read.error ? { error: read.error } : {}) });
  });
  c("C4", () => {
    const fs = findingsOf(e!, "C4");
    if (failed(fs)) put("C4", "fail", { ...where, findings: brief(fs) });
    else if (fs.some((f) => f.severity === "pass")) put("C4", "pass", { ...where, findings: brief(fs) });
    else put("C4", "na", { ...where, findings: brief(fs), reason: "only one of the header and the body carries the challenge" });
  });
  c("C5", () => {
    const fs = findingsOf(e!, "C5");
    if (failed(fs)) put("C5", "fail", { ...where, findings: brief(fs) });
    else if (fs.some((f) => f.severity === "pass")) put("C5", "pass", { ...where, bazaarReading: e!.challenge.bazaarReading ?? null });
    else put("C5", "unmeasured", { ...where, reason: c1Failed ? "the PaymentRequired did not parse (C1)" : "the probe reported no discovery finding" });
  });

  // --- as described: H1–H4, on the quote ---
  const h = (check: CheckId, fn: (q: NormalisedRequirement) => void) => {
    if (!listed.payable) return put(check, "na", { reason: "the endpoint is listed as free (not payable)" });
    if (!answered || e!.status !== 402 || !x402 || c1Failed) return put(check, "unmeasured", { ...where, reason: "no parsed x402 quote to compare" });
    if (!quote) {
      if (check === "H1") return put("H1", "fail", { ...where, listed: listedPrice(listed), reason: "the 402 offers nothing in the listed network and asset", requirements: e!.challenge.requirements ?? [] });
      return put(check, "unmeasured", { ...where, reason: "no requirement in the listed network and asset" });
    }
    fn(quote);
  };
  const seen = (q: NormalisedRequirement) => ({ amount: q.amount, asset: q.asset.toLowerCase(), network: q.network, payTo: q.payTo.toLowerCase(), scheme: q.scheme });
  h("H1", (q) => {
    const base = { ...where, quote: seen(q), listed: listedPrice(listed) };
    if (!listed.priceAmount || !/^\d+$/.test(listed.priceAmount)) return put("H1", "na", { ...base, reason: "no machine-readable listed price to compare" });
    if (!/^\d+$/.test(q.amount)) return put("H1", "fail", { ...base, reason: "the quoted amount is not an integer" });
    // A dynamic price's listed amount is a ceiling (as in docs/CANARY.md).
    const ok = listed.priceMode === "dynamic" ? BigInt(q.amount) <= BigInt(listed.priceAmount) : q.amount === listed.priceAmount;
    put("H1", ok ? "pass" : "fail", { ...base, rule: listed.priceMode === "dynamic" ? "quote <= listed (dynamic ceiling)" : "quote == listed" });
  });
  const windowStart = new Date(Date.parse(ctx.observedAt) - STABLE_WINDOW_DAYS * 86_400_000).toISOString();
  const recent = ctx.pastQuotes.filter((p) => p.at >= windowStart && p.at <= ctx.observedAt);
  h("H2", (q) => {
    if (!/^\d+$/.test(q.amount)) return put("H2", "unmeasured", { ...where, reason: "the quoted amount is not an integer" });
    const sameUnit = recent.filter((p) => p.network === q.network && same(p.asset, q.asset) && /^\d+$/.test(p.amount));
    const lower = sameUnit.filter((p) => BigInt(p.amount) < BigInt(q.amount));
    const increase = lower.find((p) => !ctx.notedPriceChanges.some((n) => n.startedAt >= p.at && n.startedAt <= ctx.observedAt));
    const base = { ...where, quote: seen(q), window: { from: windowStart, to: ctx.observedAt, quotesSeen: sameUnit.length } };
    if (increase) put("H2", "fail", { ...base, increasedFrom: { amount: increase.amount, at: increase.at }, reason: "the price rose within 30 days without a noted revision" });
    else {
      const notes = ctx.notedPriceChanges.filter((n) => n.startedAt <= ctx.observedAt && lower.some((p) => n.startedAt >= p.at));
      put("H2", "pass", { ...base, ...(lower.length ? { notedIncrease: true, sellerNotes: notes.map((n) => ({ startedAt: n.startedAt, note: n.note })) } : {}) });
    }
  });
  h("H3", (q) => {
    const other = recent.find((p) => !same(p.payTo, q.payTo));
    const base = { ...where, payTo: q.payTo.toLowerCase(), window: { from: windowStart, to: ctx.observedAt, quotesSeen: recent.length } };
    if (other) put("H3", "fail", { ...base, previousPayTo: { payTo: other.payTo, at: other.at } });
    else put("H3", "pass", base);
  });
  // H4: linked SIWE wallets or the operator's /.well-known/x402 proofs; na when neither names one.
  h("H4", (q) => {
    const payTo = q.payTo.toLowerCase();
    const proven = ctx.wellKnown?.wallets ?? [];
    const wellKnown = ctx.wellKnown ? { url: ctx.wellKnown.url, signed: ctx.wellKnown.origin, wallets: proven, unreadable: ctx.wellKnown.unreadable } : null;
    const receipt = { ...where, payTo, operatorWallets: ctx.operatorWallets, wellKnown };
    if (ctx.operatorWallets.length === 0 && proven.length === 0) {
      const file = ctx.wellKnown ? "its /.well-known/x402 proves no wallet" : "no /.well-known/x402 of its origin was read";
      return put("H4", "na", { ...receipt, reason: `the listing's owner has linked no wallet, and ${file}` });
    }
    const matchedBy = ctx.operatorWallets.includes(payTo) ? "siwe" : proven.includes(payTo) ? "well-known" : null;
    put("H4", matchedBy ? "pass" : "fail", { ...receipt, matchedBy });
  });

  // --- safe: S1, S2, S4, S5 ---
  if (!answered) put("S1", "unmeasured", { ...where, reason: refused ? "refused before any request" : "no answer" });
  else {
    const fs = findingsOf(e!, "S1");
    put("S1", failed(fs) ? "fail" : fs.some((f) => f.severity === "pass") ? "pass" : "unmeasured", { ...where, tls: e!.tls, findings: brief(fs) });
  }
  const texts = screenedTexts(answered ? e : null, listed, ctx.listing);
  const s2 = screen(texts, ["injection", "phishing", "malware"]);
  put("S2", s2.length ? "fail" : "pass", { screened: texts.map((t) => t.where), matches: s2, screen: "pattern screen (lib/screen): it has an error rate" });
  const s4probe = answered ? findingsOf(e!, "S4").filter((f) => f.severity === "fail") : [];
  const s4text = screen(texts.filter((t) => !t.where.startsWith("/402")), ["secret_ask"]);
  put("S4", s4probe.length || s4text.length ? "fail" : "pass", { screened: texts.map((t) => t.where), findings: brief(s4probe), matches: s4text });
  if (!answered) put("S5", "unmeasured", { ...where, reason: "no answer" });
  else {
    const fs = findingsOf(e!, "S5");
    put("S5", failed(fs) ? "fail" : fs.some((f) => f.severity === "pass") ? "pass" : "unmeasured", { ...where, contentType: e!.contentType, findings: brief(fs) });
  }
  return drafts;
}
