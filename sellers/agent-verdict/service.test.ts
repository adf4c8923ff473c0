/**
 * The agent-verdict service on a real anvil: the 402 offer (header and body, the bazaar extension with
 * the published schemas and example, the payment-identifier extension, the quote), payment with
 * @x402/fetch verified and settled through lib/chain's facilitator, delivery only after settlement,
 * the payment-identifier retry without a second transfer (counted in Transfer logs), 202 while
 * settlement is pending, the error statuses 400, 402, 422, 503, and no deliverable in any log or
 * anything kept.
 */
import { generateKeyPairSync } from "node:crypto";
import { x402Client } from "@x402/core/client";
import type { FacilitatorClient } from "@x402/core/server";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from "@x402/core/http";
import { toClientEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { appendPaymentIdentifierToExtensions, generatePaymentId } from "@x402/extensions/payment-identifier";
import { wrapFetchWithPayment } from "@x402/fetch";
import Ajv2020 from "ajv/dist/2020";
import { parseEventLogs, type Address, type Hex, type PrivateKeyAccount } from "viem";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { canonicalJson } from "@/lib/badges/canonical-json";
import { type AnvilNode } from "@/devchain/anvil";
import { createFacilitator } from "@/lib/chain/facilitator";
import { LOCAL_DEV_KEYS, LOCAL_NETWORK, LOCAL_USDC_ADDRESS, type LocalChain } from "@/devchain/local-chain";
import { TEST_USDC_ABI } from "@/devchain/test-usdc";
import { importProductDocument } from "@/lib/discovery/product-document";
import { parseX402 } from "@/lib/x402";
import { inProcessFacilitator } from "@/sellers/paid";
import { startFundedChain } from "@/test/chain";
import { sha256Hex } from "./digest";
import { EXAMPLE_REQUEST, INPUT_SCHEMA, OUTPUT_SCHEMA } from "./product";
import { startAgentVerdict, type AgentVerdictService } from "./service";
import { judge, outputRootOf } from "./verdict";
import { verifyStatement, type PublishedKey } from "./signer";

let node: AnvilNode;
let local: LocalChain;
let payer: PrivateKeyAccount;
let payTo: Address;
let otherPayTo: Address;
let real: FacilitatorClient;
let service: AgentVerdictService;
/** A second instance whose settle waits for the test to open a gate (to see 202 while settling). */
let gated: AgentVerdictService;
let openGate: () => void = () => {};
let gateClosed = false;
/** The PAYMENT-SIGNATURE headers the buyer sent, in order. */
const signatures: string[] = [];

const recordingFetch: typeof fetch = async (input, init) => {
  const req = new Request(input, init);
  const sig = req.headers.get("payment-signature");
  if (sig) signatures.push(sig);
  return fetch(req);
};

/** A buyer paying with @x402/fetch; with `paymentId`, every payment it signs carries that identifier. */
function buyer(paymentId?: string): typeof fetch {
  const client = new x402Client()
    .register(LOCAL_NETWORK, new ExactEvmScheme(toClientEvmSigner(payer, local.publicClient)))
    .setSpendControls({ allowedAssets: [{ network: LOCAL_NETWORK, asset: LOCAL_USDC_ADDRESS }] });
  if (paymentId) {
    client.onBeforePaymentCreation(async (ctx) => {
      appendPaymentIdentifierToExtensions((ctx.paymentRequired.extensions ??= {}) as Record<string, unknown>, paymentId);
    });
  }
  return wrapFetchWithPayment(recordingFetch, client);
}

const post = (body: unknown, headers: Record<string, string> = {}) => ({ method: "POST", headers: { "content-type": "application/json", ...headers }, body: typeof body === "string" ? body : JSON.stringify(body) });

/** Transfers of the test USDC into `to` since `fromBlock`, from the chain's logs. */
async function transfersTo(to: Address, fromBlock: bigint) {
  const logs = await local.publicClient.getLogs({ address: LOCAL_USDC_ADDRESS, fromBlock, toBlock: "latest" });
  return parseEventLogs({ abi: TEST_USDC_ABI, logs, eventName: "Transfer" }).filter((l) => (l.args as { to: Address }).to.toLowerCase() === to.toLowerCase());
}

beforeAll(async () => {
  ({ node, local, payer, payTo, otherPayTo } = await startFundedChain());
  real = inProcessFacilitator(createFacilitator(node.rpcUrl, LOCAL_DEV_KEYS[9]));
  service = await startAgentVerdict({ facilitator: real, usdc: LOCAL_USDC_ADDRESS, payTo });
  const gatedClient: FacilitatorClient = {
    verify: (p, r) => real.verify(p, r),
    getSupported: () => real.getSupported(),
    async settle(p, r) {
      if (gateClosed) await new Promise<void>((resolve) => (openGate = resolve));
      return real.settle(p, r);
    },
  };
  gated = await startAgentVerdict({ facilitator: gatedClient, usdc: LOCAL_USDC_ADDRESS, payTo: otherPayTo });
}, 60_000);
afterAll(async () => {
  await service?.close();
  await gated?.close();
  await node?.stop();
});

describe("the offer (402)", () => {
  it("answers 402 with PAYMENT-REQUIRED in the header and the same offer in the body, quoted from the $0.04 floor", async () => {
    const res = await fetch(service.resourceUrl, post(EXAMPLE_REQUEST));
    expect(res.status).toBe(402);
    const header = decodePaymentRequiredHeader(res.headers.get("payment-required")!);
    const body = await res.json();
    expect(body).toEqual(JSON.parse(JSON.stringify(header)));
    expect(header.accepts).toEqual([
      { scheme: "exact", network: LOCAL_NETWORK, amount: "40000", asset: LOCAL_USDC_ADDRESS, payTo, maxTimeoutSeconds: 300, extra: { name: "USD Coin", version: "2" } },
    ]);
    expect(res.headers.get("arbiter-quote-id")).toMatch(/^avq_[0-9a-f]{32}$/);
  });

  it("carries the bazaar extension with the published input and output schemas and the published example, proven by the program", async () => {
    const res = await fetch(service.resourceUrl, post(EXAMPLE_REQUEST));
    const { extensions } = decodePaymentRequiredHeader(res.headers.get("payment-required")!);
    const bazaar = extensions!.bazaar as { info: { input: { body: unknown; method: string }; output: { example: Record<string, unknown> } }; schema: { properties: { input: { properties: { body: unknown } }; output: { properties: { example: unknown } } } } };
    expect(bazaar.info.input).toMatchObject({ type: "http", method: "POST", bodyType: "json", body: EXAMPLE_REQUEST });
    expect(bazaar.schema.properties.input.properties.body).toEqual(INPUT_SCHEMA);
    expect(bazaar.schema.properties.output.properties.example).toEqual(OUTPUT_SCHEMA);
    // The output example is what the program answers to the example request.
    expect(bazaar.info.output.example).toMatchObject({ verdict: "ACCEPT", grade: { scale: "A_F", value: "A" } });
    expect((bazaar.info.output.example.provenance as { inputRoot: string }).inputRoot).toBe(sha256Hex(canonicalJson(EXAMPLE_REQUEST)));
    expect(extensions!["payment-identifier"]).toMatchObject({ info: { required: false } });
    // The catalog's own x402 reading finds nothing failing in it.
    const parsed = parseX402({ status: 402, headers: Object.fromEntries(res.headers), body: await res.text() });
    expect(parsed.kind).toBe("x402-v2");
    expect(parsed.findings.filter((f) => f.severity === "fail" && f.code !== "network_unknown" && f.code !== "asset_not_canonical")).toEqual([]);
  });

  it("the quote grows with criteria and size, and a changed request is a different quote", async () => {
    const criteria = Array.from({ length: 10 }, (_, i) => ({ id: `c${i}`, check: "is_json" }));
    const res = await fetch(service.resourceUrl, post({ deliverable: { kind: "text", value: "a".repeat(9000) }, criteria }));
    expect(res.status).toBe(402);
    // 40000 + 2 criteria beyond 8 × 500 + 1 started 4 KiB beyond 8 KiB × 1000
    expect(decodePaymentRequiredHeader(res.headers.get("payment-required")!).accepts[0].amount).toBe("42000");
    const a = await fetch(service.resourceUrl, post(EXAMPLE_REQUEST));
    const b = await fetch(service.resourceUrl, post({ ...EXAMPLE_REQUEST, jobRef: "job-1" }));
    expect(a.headers.get("arbiter-quote-id")).not.toBe(b.headers.get("arbiter-quote-id"));
  });

  it("serves the product document at the path it names, importable by the catalog", async () => {
    const res = await fetch(service.docsUrl);
    expect(res.status).toBe(200);
    const doc = await res.json();
    expect(doc).toMatchObject({ productId: "AGENT_VERDICT", productVersion: "1.0.0", resourceUrl: service.resourceUrl, docsPath: "/docs/AGENT_VERDICT.json", inputSchema: INPUT_SCHEMA, outputSchema: OUTPUT_SCHEMA });
    expect(doc.payment.destination).toMatchObject({ address: payTo, assetContracts: [LOCAL_USDC_ADDRESS], networks: [LOCAL_NETWORK] });
    const imported = importProductDocument(doc);
    expect(imported.ok).toBe(true);
    if (imported.ok) expect(imported.listing.baseUrl).toBe(service.url);
  });
});

describe("paid with @x402/fetch", () => {
  it("settles on chain, then delivers the verdict; the quoted amount moved once", async () => {
    const from = await local.publicClient.getBlockNumber({ cacheTime: 0 });
    const before = await local.balanceOf(payTo);
    const res = await buyer()(service.resourceUrl, post(EXAMPLE_REQUEST));
    expect(res.status).toBe(200);
    const out = await res.json();
    expect(new Ajv2020({ strict: false }).validate(OUTPUT_SCHEMA, out)).toBe(true);
    expect(out).toMatchObject({ verdict: "ACCEPT", grade: { value: "A" }, signature: { state: "UNSIGNED_SIGNER_NOT_COMMISSIONED" } });
    const receipt = decodePaymentResponseHeader(res.headers.get("payment-response")!);
    expect(receipt).toMatchObject({ success: true, network: LOCAL_NETWORK, payer: payer.address });
    expect((await local.publicClient.getTransactionReceipt({ hash: receipt.transaction as Hex })).status).toBe("success");
    expect((await local.balanceOf(payTo)) - before).toBe(40_000n);
    expect(await transfersTo(payTo, from + 1n)).toHaveLength(1);
  });

  it("a refused payment is a 402 and nothing is delivered or charged", async () => {
    const before = await local.balanceOf(payTo);
    // a payment signed for a different request's quote (more criteria: a larger amount) does not match this one
    const bigger = { ...EXAMPLE_REQUEST, criteria: Array.from({ length: 12 }, (_, i) => ({ id: `c${i}`, check: "is_json" })) };
    signatures.length = 0;
    await buyer()(service.resourceUrl, post(bigger));
    const res = await fetch(service.resourceUrl, post(EXAMPLE_REQUEST, { "payment-signature": signatures.at(-1)! }));
    expect(res.status).toBe(402);
    expect(res.headers.get("payment-response")).toBeNull();
    expect((await res.json()).verdict).toBeUndefined();
    expect((await local.balanceOf(payTo)) - before).toBe(42_000n); // only the bigger request's own payment
  });
});

describe("payment identifier", () => {
  it("a retry with the same identifier returns the cached delivery and the same receipt, with no second transfer", async () => {
    const id = generatePaymentId("av_");
    const from = (await local.publicClient.getBlockNumber({ cacheTime: 0 })) + 1n;
    const before = await local.balanceOf(payTo);
    signatures.length = 0;
    const paid = buyer(id);
    const first = await paid(service.resourceUrl, post(EXAMPLE_REQUEST));
    expect(first.status).toBe(200);
    expect(first.headers.get("arbiter-logical-payment-id")).toBe(id);
    const firstBody = await first.text();
    const firstReceipt = first.headers.get("payment-response");

    // 1. the very same payment sent again
    const replay = await fetch(service.resourceUrl, post(EXAMPLE_REQUEST, { "payment-signature": signatures[0] }));
    expect(replay.status).toBe(200);
    expect(replay.headers.get("arbiter-delivery")).toBe("CACHED");
    expect(replay.headers.get("payment-response")).toBe(firstReceipt);
    expect(await replay.text()).toBe(firstBody);

    // 2. a buyer that signs a fresh payment carrying the same identifier
    const again = await paid(service.resourceUrl, post(EXAMPLE_REQUEST));
    expect(again.status).toBe(200);
    expect(again.headers.get("payment-response")).toBe(firstReceipt);
    expect(await again.text()).toBe(firstBody);

    // 3. the identifier alone, in the logical-payment header
    const byHeader = await fetch(service.resourceUrl, post(EXAMPLE_REQUEST, { "arbiter-logical-payment-id": id }));
    expect(byHeader.status).toBe(200);
    expect(byHeader.headers.get("payment-response")).toBe(firstReceipt);

    // One settlement on chain for all of it.
    expect(await transfersTo(payTo, from)).toHaveLength(1);
    expect((await local.balanceOf(payTo)) - before).toBe(40_000n);
  });

  it("the same identifier for a different request is refused (400), and the identifier must be well formed", async () => {
    const id = generatePaymentId("av_");
    expect((await buyer(id)(service.resourceUrl, post(EXAMPLE_REQUEST))).status).toBe(200);
    const other = await fetch(service.resourceUrl, post({ ...EXAMPLE_REQUEST, jobRef: "x" }, { "arbiter-logical-payment-id": id }));
    expect(other.status).toBe(400);
    expect((await other.json()).error.details[0].message).toContain("belongs to a different request");
    const short = await fetch(service.resourceUrl, post(EXAMPLE_REQUEST, { "arbiter-logical-payment-id": "short" }));
    expect(short.status).toBe(400);
    expect((await short.json()).error.details[0].pointer).toBe("header:ARBITER-LOGICAL-PAYMENT-ID");
  });

  it("202 while settlement is pending; then the one settlement is the delivery every retry gets", async () => {
    const id = generatePaymentId("av_");
    const from = (await local.publicClient.getBlockNumber({ cacheTime: 0 })) + 1n;
    gateClosed = true;
    signatures.length = 0;
    const firstCall = buyer(id)(gated.resourceUrl, post(EXAMPLE_REQUEST));
    await vi.waitFor(() => expect(gated.deliveries.get(id)?.state).toBe("pending"), { timeout: 10_000 });
    const retry = await fetch(gated.resourceUrl, post(EXAMPLE_REQUEST, { "payment-signature": signatures[0] }));
    expect(retry.status).toBe(202);
    expect(retry.headers.get("retry-after")).toBe("1");
    expect(await retry.json()).toMatchObject({ status: "PENDING", paymentIdentifier: id });
    gateClosed = false;
    openGate();
    const first = await firstCall;
    expect(first.status).toBe(200);
    const after = await fetch(gated.resourceUrl, post(EXAMPLE_REQUEST, { "payment-signature": signatures[0] }));
    expect(after.status).toBe(200);
    expect(after.headers.get("payment-response")).toBe(first.headers.get("payment-response"));
    expect(await transfersTo(otherPayTo, from)).toHaveLength(1);
  });
});

describe("error statuses", () => {
  it("400: the request is validated before any quote, each problem by pointer", async () => {
    const bad = await fetch(service.resourceUrl, post({ deliverable: { kind: "text", value: "x" }, criteria: [{ id: "a", check: "vibes" }] }));
    expect(bad.status).toBe(400);
    expect(bad.headers.get("payment-required")).toBeNull();
    expect(await bad.json()).toMatchObject({ error: { code: "bad_request", message: "The request field is invalid.", details: [{ pointer: "/criteria/0/check" }] } });
    const notJson = await fetch(service.resourceUrl, post("{not json"));
    expect(notJson.status).toBe(400);
    expect((await notJson.json()).error.details).toEqual([{ pointer: "", message: "the body is not JSON" }]);
    const huge = await fetch(service.resourceUrl, post({ deliverable: { kind: "text", value: "a".repeat(600_000) }, criteria: [] }));
    expect(huge.status).toBe(400);
    const quote = await fetch(service.resourceUrl, post(EXAMPLE_REQUEST, { "arbiter-quote-id": "avq_00000000000000000000000000000000" }));
    expect(quote.status).toBe(400);
    expect((await quote.json()).error.details[0].pointer).toBe("header:ARBITER-QUOTE-ID");
  });

  it("422: a verdict that fails its own output schema is not delivered, and the payment is not settled", async () => {
    const before = await local.balanceOf(payTo);
    // Fault injection: the program returns an envelope without its required `verdict`.
    const broken = await startAgentVerdict({
      facilitator: real,
      usdc: LOCAL_USDC_ADDRESS,
      payTo,
      judge: (p, o) => {
        const { verdict: _v, ...rest } = judge(p, o);
        return rest;
      },
    });
    try {
      const res = await buyer()(broken.resourceUrl, post(EXAMPLE_REQUEST));
      expect(res.status).toBe(422);
      expect(await res.json()).toMatchObject({ error: { code: "unprocessable", message: "The result could not be delivered." } });
      expect(res.headers.get("payment-response")).toBeNull();
    } finally {
      await broken.close();
    }
    expect(await local.balanceOf(payTo)).toBe(before);
  });

  it("503: past the admission limit, and when the facilitator fails (nothing charged)", async () => {
    const down: FacilitatorClient = {
      verify: async () => {
        throw new Error("connect ECONNREFUSED");
      },
      settle: async () => {
        throw new Error("connect ECONNREFUSED");
      },
      getSupported: () => real.getSupported(),
    };
    const s = await startAgentVerdict({ facilitator: down, usdc: LOCAL_USDC_ADDRESS, payTo });
    try {
      const res = await buyer()(s.resourceUrl, post(EXAMPLE_REQUEST));
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ error: { code: "unavailable", message: "The seller or the product quote path is not currently admitting this request." } });
    } finally {
      await s.close();
    }
    const none = await startAgentVerdict({ facilitator: real, usdc: LOCAL_USDC_ADDRESS, payTo, maxInFlight: 0 });
    try {
      const res = await fetch(none.resourceUrl, post(EXAMPLE_REQUEST));
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("1");
    } finally {
      await none.close();
    }
  });
});

describe("signed receipts", () => {
  it("with a receipt key: Ed25519 over the roots, checked with the published key alone", async () => {
    const { privateKey } = generateKeyPairSync("ed25519");
    const s = await startAgentVerdict({ facilitator: real, usdc: LOCAL_USDC_ADDRESS, payTo, receiptKey: privateKey.export({ format: "pem", type: "pkcs8" }).toString() });
    try {
      const res = await buyer()(s.resourceUrl, post(EXAMPLE_REQUEST));
      expect(res.status).toBe(200);
      const out = await res.json();
      expect(out.signature).toMatchObject({ state: "SIGNED", algorithm: "Ed25519", verify: { keys: `${s.url}/.well-known/agent-verdict-keys.json` } });
      const keys = (await (await fetch(out.signature.verify.keys)).json()) as { keys: PublishedKey[] };
      const key = keys.keys.find((k) => k.keyRef === out.signature.keyRef)!;
      const statement = { ...out.signature.verify.statement, inputRoot: sha256Hex(canonicalJson(EXAMPLE_REQUEST)), outputRoot: outputRootOf(out) };
      expect(verifyStatement(statement, out.signature.signature, key)).toBe(true);
    } finally {
      await s.close();
    }
  });
});

describe("the work is data", () => {
  it("no submitted deliverable reaches any log, any answer, or anything the service keeps", async () => {
    const marker = "DELIVERABLE-MARKER-5d1e9b7c";
    const written: string[] = [];
    const spies = [
      ...(["log", "info", "warn", "error", "debug", "trace"] as const).map((m) => vi.spyOn(console, m).mockImplementation((...a: unknown[]) => void written.push(a.map(String).join(" ")))),
      vi.spyOn(process.stdout, "write").mockImplementation((c: unknown) => (written.push(String(c)), true)),
      vi.spyOn(process.stderr, "write").mockImplementation((c: unknown) => (written.push(String(c)), true)),
    ];
    const answers: string[] = [];
    try {
      const keep = async (r: Promise<Response>) => {
        const res = await r;
        answers.push(JSON.stringify(Object.fromEntries(res.headers)), await res.text());
        return res.status;
      };
      const text = { deliverable: { kind: "text", value: `report ${marker} end` }, criteria: [{ id: "a", check: "contains", value: "report" }, { id: "b", check: "is_json" }] };
      const json = { deliverable: { kind: "json", value: { [marker]: marker, n: [marker] } }, criteria: [{ id: "a", check: "json_schema", schema: { additionalProperties: false } }, { id: "b", check: "unique_values", path: "n" }] };
      const bytes = { deliverable: { kind: "bytes", value: Buffer.from(marker).toString("base64") }, criteria: [{ id: "a", check: "byte_length", max: 1 }] };
      const id = generatePaymentId("av_");
      expect(await keep(buyer(id)(service.resourceUrl, post(text)))).toBe(200);
      expect(await keep(buyer()(service.resourceUrl, post(json)))).toBe(200);
      expect(await keep(buyer()(service.resourceUrl, post(bytes)))).toBe(200);
      expect(await keep(fetch(service.resourceUrl, post(text, { "arbiter-logical-payment-id": id })))).toBe(200);
      // and the refusals: not JSON, too large, invalid, unpaid
      expect(await keep(fetch(service.resourceUrl, post(`{"deliverable": {"kind": "text", "value": ${marker}}}`)))).toBe(400);
      expect(await keep(fetch(service.resourceUrl, post({ ...text, deliverable: { kind: "text", value: marker.repeat(20_000) } })))).toBe(400);
      expect(await keep(fetch(service.resourceUrl, post({ ...text, deliverable: { kind: "bytes", value: marker } })))).toBe(400);
      expect(await keep(fetch(service.resourceUrl, post({ ...text, deliverable: { kind: "text", value: marker, extra: 1 } })))).toBe(400);
      expect(await keep(fetch(service.resourceUrl, post(json)))).toBe(402);
    } finally {
      for (const s of spies) s.mockRestore();
    }
    const b64 = Buffer.from(marker).toString("base64");
    for (const where of [written.join("\n"), answers.join("\n"), JSON.stringify(service.deliveries.snapshot(), (_k, v) => (v?.type === "Buffer" ? Buffer.from(v.data).toString() : v))]) {
      expect(where).not.toContain(marker);
      expect(where).not.toContain(b64);
      // a parser's error quotes a few characters around where it stopped: not even those
      expect(where).not.toContain(marker.slice(0, 10));
    }
    expect(answers.length).toBeGreaterThan(0);
  });
});
