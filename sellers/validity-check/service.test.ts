/**
 * The validity-check service over HTTP on a real anvil: the free routes, every free refusal before
 * any payment (and with a payment attached, nothing moves), the body cap, NOT COVERED, the 402 offer
 * with its bazaar extension, paid deliveries through @x402/fetch after a real settlement (and none
 * when the settlement fails), the free pre-check's allowance, and custody: no submitted artefact in
 * any log, ledger row or metric.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { x402Client } from "@x402/core/client";
import { decodePaymentResponseHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { FacilitatorClient } from "@x402/core/server";
import { toClientEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import Ajv2020 from "ajv/dist/2020";
import type { Address, Hex, PrivateKeyAccount } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AnvilNode } from "@/devchain/anvil";
import { createFacilitator } from "@/lib/chain/facilitator";
import { LOCAL_DEV_KEYS, LOCAL_NETWORK, LOCAL_USDC_ADDRESS, type LocalChain } from "@/devchain/local-chain";
import { importProductDocument } from "@/lib/discovery/product-document";
import { parseX402 } from "@/lib/x402";
import { inProcessFacilitator } from "@/sellers/paid";
import { startFundedChain } from "@/test/chain";
import { CORPUS_FILE, type Corpus } from "@/test/validity-corpus";
import { UPTO_EXAMPLE_OUTPUT, UPTO_OUTPUT_SCHEMA, VALIDITY_EXAMPLE_INPUT, VALIDITY_EXAMPLE_OUTPUT, VALIDITY_OUTPUT_SCHEMA } from "./examples";
import { LEDGER_FIELDS } from "./ledger";
import { startValidityCheck, type ValidityCheck } from "./service";

const PUBLISHED = readFileSync(path.join(__dirname, "../../lib/scoring/readiness/fixtures/seed-products/003-validity-check.json"), "utf8");
const corpus = JSON.parse(readFileSync(CORPUS_FILE, "utf8")) as Corpus;

let node: AnvilNode;
let local: LocalChain;
let payer: PrivateKeyAccount;
let payTo: Address;
let facilitator: FacilitatorClient;
let service: ValidityCheck;
let paidFetch: typeof fetch;
let client: x402Client;
/** The service's clock (ms): real time at the start, moved by the tests that need it. */
let clock = Date.now();

beforeAll(async () => {
  ({ node, local, payer, payTo } = await startFundedChain());
  facilitator = inProcessFacilitator(createFacilitator(node.rpcUrl, LOCAL_DEV_KEYS[9]));
  service = await startValidityCheck({ facilitator, usdc: LOCAL_USDC_ADDRESS, payTo, now: () => clock });
  client = new x402Client()
    .register(LOCAL_NETWORK, new ExactEvmScheme(toClientEvmSigner(payer, local.publicClient)))
    .setSpendControls({ allowedAssets: [{ network: LOCAL_NETWORK, asset: LOCAL_USDC_ADDRESS }] });
  paidFetch = wrapFetchWithPayment(fetch, client);
}, 60_000);
afterAll(async () => {
  await service?.close();
  await node?.stop();
});

const post = (p: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${service.url}${p}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });

/** A PAYMENT-SIGNATURE for the validity route's real offer (signed by the funded payer). */
async function signedPaymentFor(p: string, body: unknown): Promise<string> {
  const unpaid = await post(p, body);
  expect(unpaid.status).toBe(402);
  const required = JSON.parse(Buffer.from(unpaid.headers.get("payment-required")!, "base64").toString("utf8"));
  const payload = await client.createPaymentPayload(required);
  return encodePaymentSignatureHeader(payload);
}

describe("free routes", () => {
  it("GET /criteria answers the published criteria document byte for byte", async () => {
    const res = await fetch(`${service.url}/criteria`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await res.text()).toBe(PUBLISHED);
  });

  it("the catalog's importer reads the served document from its URL: the five endpoints, upto and validity at $0.01", async () => {
    const url = `${service.url}/criteria`;
    const r = importProductDocument(await (await fetch(url)).text(), { sourceUrl: url });
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    expect(r.format).toBe("criteria-document");
    expect(r.listing.docsUrl).toBe(url);
    expect(r.listing.endpoints.map((e) => `${e.method} ${e.path} ${e.payable}`)).toEqual([
      "GET /criteria false", "POST /precheck false", "POST /upto true", "POST /validity true", "GET /metrics false",
    ]);
  });

  it("any other POST path answers NOT COVERED; an unknown GET is a plain 404", async () => {
    for (const p of ["/price", "/criteria", "/lint", "/validity/extra"]) {
      const res = await post(p, { payload: { rail: "evm", valid_before: 1 } });
      expect(res.status, p).toBe(404);
      expect((await res.json()).error, p).toBe("NOT COVERED");
    }
    const get = await fetch(`${service.url}/nothing`);
    expect(get.status).toBe(404);
    expect((await get.json()).error).toBe("not_found");
  });

  it("GET /metrics is Prometheus text over closed label sets", async () => {
    const res = await fetch(`${service.url}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('validity_check_refusals_total{code="ceiling_malformed"}');
    expect(text).toContain('validity_check_verdicts_total{verdict="TIGHT"}');
  });
});

describe("free refusals, before any payment", () => {
  const refusals = corpus.cases.filter((c) => c.endpoint !== "POST /precheck" && c.expected.status === 400);

  it("every malformed corpus case on /upto and /validity is refused 400 with its named code, not 402", async () => {
    expect(refusals.length).toBeGreaterThan(30);
    for (const c of refusals) {
      const res = await post(c.endpoint.slice(5), c.body);
      expect(res.status, c.id).toBe(400);
      expect(res.headers.get("payment-required"), c.id).toBeNull();
      expect(await res.json(), c.id).toEqual(c.expected.body);
    }
  });

  it("a body that is not JSON is a missing challenge / payload", async () => {
    const res = await fetch(`${service.url}/upto`, { method: "POST", headers: { "content-type": "application/json" }, body: "{not json" });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ refusal: "challenge_required", pointer: "" });
  });

  it("a malformed artefact sent with a valid payment is still refused free: nothing moves on chain", async () => {
    const signature = await signedPaymentFor("/validity", VALIDITY_EXAMPLE_INPUT);
    const before = await local.balanceOf(payer.address);
    const res = await post("/validity", { payload: { rail: "evm", valid_before: "soon" } }, { "payment-signature": signature });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ refusal: "valid_before_malformed" });
    expect(res.headers.get("payment-response")).toBeNull();
    expect(await local.balanceOf(payer.address)).toBe(before);
  });

  it("a body over 262,144 bytes is refused 413 naming the cap; one at the cap is read", async () => {
    const over = JSON.stringify({ payload: { rail: "evm", valid_before: 1 }, pad: "x".repeat(262_144) });
    const res = await fetch(`${service.url}/validity`, { method: "POST", body: over });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: "body_too_large", refusal: "body_too_large", cap_bytes: 262_144 });
    const base = JSON.stringify({ payload: { rail: "evm", valid_before: 1 }, pad: "" });
    const atCap = JSON.stringify({ payload: { rail: "evm", valid_before: 1 }, pad: "x".repeat(262_144 - base.length) });
    expect(Buffer.byteLength(atCap)).toBe(262_144);
    expect((await fetch(`${service.url}/validity`, { method: "POST", body: atCap })).status).toBe(402);
    // Streamed without a length: the cap holds as the bytes arrive.
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode(over));
        c.close();
      },
    });
    const chunked = await fetch(`${service.url}/precheck`, { method: "POST", body: stream, duplex: "half" } as RequestInit);
    expect(chunked.status).toBe(413);
  });
});

describe("the 402 offer", () => {
  it("each paid op answers 402 with its real offer: exact USDC on the local chain, $0.01, and a bazaar extension with its schemas and proven example", async () => {
    const ajv = new Ajv2020({ strict: false });
    for (const [op, body] of [["upto", corpus.cases.find((c) => c.id === "upto/published-example")!.body], ["validity", VALIDITY_EXAMPLE_INPUT]] as const) {
      const res = await post(`/${op}`, body);
      expect(res.status, op).toBe(402);
      const parsed = parseX402({ status: res.status, headers: Object.fromEntries(res.headers), body: await res.text() });
      expect(parsed.kind, op).toBe("x402-v2");
      expect(parsed.findings.filter((f) => f.severity === "fail"), op).toEqual([]);
      expect(parsed.requirements?.[0], op).toMatchObject({ scheme: "exact", network: LOCAL_NETWORK, amount: "10000", payTo, asset: LOCAL_USDC_ADDRESS });
      const required = JSON.parse(Buffer.from(res.headers.get("payment-required")!, "base64").toString("utf8"));
      const bazaar = required.extensions.bazaar;
      expect(bazaar.info.input).toMatchObject({ type: "http", method: "POST", bodyType: "json", body });
      const schema = bazaar.schema.properties;
      expect(schema.input.properties.body.required, op).toContain(op === "upto" ? "challenge" : "payload");
      const outputSchema = schema.output.properties.example;
      expect(outputSchema, op).toEqual(op === "upto" ? UPTO_OUTPUT_SCHEMA : VALIDITY_OUTPUT_SCHEMA);
      expect(ajv.validate(outputSchema, bazaar.info.output.example), JSON.stringify(ajv.errors)).toBe(true);
      expect(bazaar.info.output.example, op).toEqual(op === "upto" ? UPTO_EXAMPLE_OUTPUT : VALIDITY_EXAMPLE_OUTPUT);
    }
  });
});

describe("paid with @x402/fetch on anvil", () => {
  it("POST /validity: the delivery after a real settlement, the money on chain, one closed-field ledger row", async () => {
    const before = await local.balanceOf(payTo);
    const rowsBefore = service.ledger().length;
    const res = await paidFetch(`${service.url}/validity`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(VALIDITY_EXAMPLE_INPUT) });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(VALIDITY_EXAMPLE_OUTPUT);
    const settled = decodePaymentResponseHeader(res.headers.get("payment-response")!);
    expect(settled).toMatchObject({ success: true, network: LOCAL_NETWORK, payer: payer.address });
    const receipt = await local.publicClient.getTransactionReceipt({ hash: settled.transaction as Hex });
    expect(receipt.status).toBe("success");
    expect((await local.balanceOf(payTo)) - before).toBe(10_000n);
    const rows = service.ledger();
    expect(rows.length).toBe(rowsBefore + 1);
    const row = rows.at(-1)!;
    expect(Object.keys(row)).toEqual([...LEDGER_FIELDS]);
    expect(row).toMatchObject({
      payer_wallet: payer.address,
      price_usdc_units: "10000",
      payment_tx_id: settled.transaction,
      solana_fee_lamports: null,
      criteria_version: "payer-preflight/v1@1.0.0",
      op: "validity",
      verdict_line: "validity evm OK",
      house: false,
      cad_fmv: { rate: null, rate_date: null, basis: null, cad_pending: true, refund: false },
    });
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    expect(metrics).toMatch(/validity_check_paid_deliveries_total\{op="validity"\} [1-9]/);
    expect(metrics).toMatch(/validity_check_verdicts_total\{verdict="OK"\} [1-9]/);
  });

  it("POST /upto: the ceiling statement at the server's instant", async () => {
    const body = { challenge: { scheme: "upto", network: "eip155:8453", payTo, asset: LOCAL_USDC_ADDRESS, max_amount_required: "000250000", asset_decimals: 6 } };
    const res = await paidFetch(`${service.url}/upto`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    expect(res.status).toBe(200);
    const statement = await res.json();
    expect(statement).toMatchObject({ op: "upto", maximum_signable_atomic: "000250000", maximum_signable_decimal: "0.250000", machinery_status: "NOT-ESTABLISHABLE-FROM-ARTEFACT", issued_at_unix: Math.floor(clock / 1000) });
    expect(service.ledger().at(-1)).toMatchObject({ op: "upto", verdict_line: "upto NOT-ESTABLISHABLE-FROM-ARTEFACT" });
  });

  it("when the settlement fails, nothing is delivered and nothing is recorded", async () => {
    const failing: FacilitatorClient = {
      verify: (p, r) => facilitator.verify(p, r),
      getSupported: () => facilitator.getSupported(),
      settle: async (_p, r) => ({ success: false, errorReason: "unexpected_settle_error", transaction: "", network: r.network }),
    };
    const broken = await startValidityCheck({ facilitator: failing, usdc: LOCAL_USDC_ADDRESS, payTo });
    try {
      const before = await local.balanceOf(payer.address);
      const res = await paidFetch(`${broken.url}/validity`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(VALIDITY_EXAMPLE_INPUT) });
      expect(res.status).toBe(402);
      expect(await res.text()).not.toContain("remaining_seconds");
      expect(broken.ledger()).toEqual([]);
      expect(await local.balanceOf(payer.address)).toBe(before);
    } finally {
      await broken.close();
    }
  });
});

describe("the free pre-check", () => {
  const wallet = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
  const precheck = (body: unknown) => post("/precheck", body);

  it("answers assessability only: facts, no ceiling statement, no time remaining, no verdict", async () => {
    clock += 60_000;
    const res = await precheck({ op: "validity", payload: { rail: "evm", valid_before: 1796212800 }, evaluation_at_unix: 1796212700, caller: wallet });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toEqual({ service: "validity-check", version: "1.0.0", criteria_id: "payer-preflight/v1", criteria_revision: "1.0.0", op: "validity", assessable: true, facts: { rail: "evm", evaluation_instant_submitted: true } });
    expect(JSON.stringify(body)).not.toMatch(/verdict|remaining|maximum_signable|1796212800/);
  });

  it("every pre-check corpus case answers as the reference does", async () => {
    for (const c of corpus.cases.filter((x) => x.endpoint === "POST /precheck")) {
      clock += 5_000;
      const res = await precheck(c.body);
      expect(res.status, c.id).toBe(c.expected.status);
      expect(await res.json(), c.id).toEqual(c.expected.body);
    }
  });

  it("100 a day per caller wallet, at least 5,000 ms apart, 402 when exhausted; a refused call takes nothing", async () => {
    const caller = "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65";
    const body = { op: "upto", challenge: { scheme: "upto", network: "eip155:8453", payTo, asset: LOCAL_USDC_ADDRESS, max_amount_required: "1" }, caller };
    // Start at the beginning of a UTC day so the 100 calls stay inside it.
    clock = Date.parse("2031-01-01T00:00:00.000Z");
    expect((await precheck(body)).status).toBe(200);
    clock += 4_999;
    const tooSoon = await precheck(body);
    expect(tooSoon.status).toBe(402);
    expect(await tooSoon.json()).toMatchObject({ error: "free_allowance_exhausted", refusal: "free_min_interval", min_interval_ms: 5_000, retry_after_ms: 1 });
    expect((await precheck({ ...body, caller: wallet })).status).toBe(200); // another wallet has its own allowance
    clock += 1;
    for (let i = 2; i <= 100; i++) {
      const res = await precheck(i % 2 ? body : { ...body, challenge: { scheme: "exact" } }); // refusals count as uses too
      expect(res.status, `call ${i}`).toBe(i % 2 ? 200 : 400);
      expect(res.headers.get("x-free-remaining-today"), `call ${i}`).toBe(String(100 - i));
      clock += 5_000;
    }
    const exhausted = await precheck(body);
    expect(exhausted.status).toBe(402);
    expect(await exhausted.json()).toMatchObject({ refusal: "free_daily_allowance_exhausted", per_day: 100 });
    expect(Number(exhausted.headers.get("retry-after"))).toBeGreaterThan(0);
    clock = Date.parse("2031-01-02T00:00:00.000Z");
    expect((await precheck(body)).status).toBe(200);
  });
});

describe("custody: no submitted artefact reaches a log, a ledger row or a metric", () => {
  it("on the refusal paths, the cap, a broken body and a paid delivery", async () => {
    const MARK = "ARTEFACT7f3a9c";
    const markHex = "0x7f3a9c7f3a9c7f3a9c7f3a9c7f3a9c7f3a9c7f3a"; // a wallet-shaped marker
    const written: string[] = [];
    const out = process.stdout.write.bind(process.stdout);
    const err = process.stderr.write.bind(process.stderr);
    const methods = ["log", "info", "warn", "error", "debug", "trace"] as const;
    const originals = methods.map((k) => console[k]);
    process.stdout.write = ((chunk: unknown, ...rest: unknown[]) => (written.push(String(chunk)), (out as (...a: unknown[]) => boolean)(chunk, ...rest))) as typeof process.stdout.write;
    process.stderr.write = ((chunk: unknown, ...rest: unknown[]) => (written.push(String(chunk)), (err as (...a: unknown[]) => boolean)(chunk, ...rest))) as typeof process.stderr.write;
    for (const k of methods) console[k] = (...args: unknown[]) => void written.push(args.map(String).join(" "));
    const responses: string[] = [];
    try {
      const challenge = { scheme: "upto", network: `eip155:${MARK.length}`, payTo: markHex, asset: `${MARK}-asset`, max_amount_required: "123456789", asset_decimals: 3 };
      const sends: [string, string][] = [
        ["/upto", JSON.stringify({ challenge: { ...challenge, scheme: MARK } })],
        ["/upto", JSON.stringify({ challenge: { ...challenge, max_amount_required: MARK } })],
        ["/validity", JSON.stringify({ payload: { rail: MARK, valid_before: 5 } })],
        ["/validity", `{"payload": ${MARK}`],
        ["/validity", JSON.stringify({ payload: { rail: "evm", valid_before: 5 }, pad: MARK.repeat(30_000) })],
        ["/precheck", JSON.stringify({ op: MARK, caller: markHex })],
        ["/nothing", JSON.stringify({ x: MARK })],
      ];
      for (const [p, body] of sends) {
        clock += 5_000;
        const res = await fetch(`${service.url}${p}`, { method: "POST", headers: { "content-type": "application/json" }, body });
        responses.push(await res.text());
      }
      const paid = await paidFetch(`${service.url}/upto`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ challenge }) });
      expect(paid.status).toBe(200);
      expect((await paid.json()).asset).toBe(`${MARK}-asset`); // the delivery the buyer paid for carries it, and only the delivery
    } finally {
      process.stdout.write = out;
      process.stderr.write = err;
      methods.forEach((k, i) => (console[k] = originals[i] as never));
    }
    expect(written.join("\n")).not.toContain(MARK);
    expect(written.join("\n")).not.toContain("123456789");
    for (const r of responses) expect(r).not.toContain(MARK); // refusals are closed-form: codes and numbers only
    const rows = JSON.stringify(service.ledger());
    expect(rows).not.toContain(MARK);
    expect(rows).not.toContain(markHex);
    expect(rows).not.toContain("123456789");
    for (const row of service.ledger()) expect(Object.keys(row)).toEqual([...LEDGER_FIELDS]);
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    expect(metrics).not.toContain(MARK);
    expect(metrics).not.toContain("123456789");
  });
});
