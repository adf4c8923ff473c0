/**
 * The guard's proof (docs/ATTESTATIONS.md "The guard"): a hostile local market of 12 attack sellers and
 * 12 honest ones behind the real x402 seller middleware, settling on anvil through lib/chain's
 * facilitator; a canary pass that pays every listed seller once and grades it from what came back;
 * and a stand-in Tollgate serving the attestations signed from that grading (lib/attest/attestation.ts).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { paymentMiddleware, x402ResourceServer } from "@x402/express";
import { x402Client } from "@x402/core/client";
import { toClientEvmSigner } from "@x402/evm";
import { ExactEvmScheme as ExactEvmClient } from "@x402/evm/exact/client";
import { ExactEvmScheme as ExactEvmServer } from "@x402/evm/exact/server";
import { wrapFetchWithPayment } from "@x402/fetch";
import { keccak256, toHex, type Address, type PrivateKeyAccount } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { startAnvil, type AnvilNode } from "@/devchain/anvil";
import { LOCAL_DEV_KEYS, LOCAL_NETWORK, LOCAL_USDC_ADDRESS, LOCAL_USDC_DOMAIN, setupLocalChain, type LocalChain } from "@/devchain/local-chain";
import { createFacilitator } from "@/lib/chain/facilitator";
import { ATTESTATION_TTL_MS, ATTESTATION_TYPE, signAttestation, type AttestationStatement } from "@/lib/attest/attestation";
import { publicKeySet, signerFor } from "@/lib/badges/keys";
import type { DsseEnvelope } from "@/lib/badges/dsse";
import { failAfterSettlement, inProcessFacilitator } from "@/sellers/paid/index";
import { listenLoopback } from "@/sellers/listen";
import { fixedKeyring } from "@/test/badges";

export const ATTACKS = [
  "decoy",
  "payto-swapped",
  "above-listed-price",
  "fails-after-payment",
  "402-everywhere",
  "html-fallback",
  "badge-copied",
  "attestation-replayed",
  "schema-phantom",
  "expired-attestation",
  "wrong-network",
  "listing-changed",
] as const;
export type Attack = (typeof ATTACKS)[number];
export const HONEST = Array.from({ length: 12 }, (_, i) => `honest-${i + 1}`);

/** The reason the guard must give for each attack (docs/ATTESTATIONS.md "The guard" says which check sees which). */
export const EXPECTED: Record<Attack, string> = {
  decoy: "avoid",
  "payto-swapped": "payto_changed",
  "above-listed-price": "price_above_listing",
  "fails-after-payment": "avoid",
  "402-everywhere": "unlisted",
  "html-fallback": "avoid",
  "badge-copied": "wrong_endpoint",
  "attestation-replayed": "wrong_endpoint",
  "schema-phantom": "avoid",
  "expired-attestation": "expired",
  "wrong-network": "network_mismatch",
  "listing-changed": "listing_changed",
};

const PRICE = "10000";
const DECOY_PRICE = "1000000000"; // 1,000 USDC
const BASE_USDC = "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913";
const H = "0".repeat(64);

interface Seller {
  slug: string;
  attack: Attack | null;
  payTo: Address;
  /** The URL an agent calls. */
  url: string;
  /** The URL the listing names (what the canary grades). */
  listed: string | null;
}

export interface GuardMarket {
  node: AnvilNode;
  local: LocalChain;
  sellers: Seller[];
  /** The stand-in Tollgate's origin: GET /api/attestations?url= and /.well-known/tollgate-badge-keys.json. */
  tollgate: string;
  keys: ReturnType<typeof publicKeySet>;
  /** Attestation lookups the stand-in answered, per URL. */
  lookups: Map<string, number>;
  /** What the canary pass saw per listed seller, and the verdict it gave. */
  canary: Map<string, { status: number; verdict: string; because: string }>;
  /** A funded buyer and a paying fetch on plain @x402/fetch. */
  buyer(label: string, funds: bigint): Promise<{ account: PrivateKeyAccount; client: x402Client; fetch: typeof fetch }>;
  attackPayees(): Address[];
  close(): Promise<void>;
}

const deliversSchema = (b: unknown) => typeof b === "object" && b !== null && typeof (b as { value?: unknown }).value === "number";

export async function startGuardMarket(label = "guard market"): Promise<GuardMarket> {
  const derive = (what: string) => keccak256(toHex(`${label} ${what}`));
  const node = await startAnvil();
  const closers: Array<() => Promise<void>> = [() => node.stop()];
  const close = async () => {
    for (const c of closers.reverse()) await c().catch(() => undefined);
  };
  try {
    const local = await setupLocalChain(node.rpcUrl);
    const facilitator = inProcessFacilitator(createFacilitator(node.rpcUrl, LOCAL_DEV_KEYS[9]));
    const resourceServer = new x402ResourceServer(facilitator).register(LOCAL_NETWORK, new ExactEvmServer());
    let phase: "grading" | "live" = "grading";
    const app = express();
    app.disable("x-powered-by");
    const sellers: Seller[] = [];
    const routers = new Map<string, { grading: express.Router; live: express.Router }>();
    let origin = "";

    const paid = (payTo: Address, amount: string, resource?: string) => ({
      accepts: { scheme: "exact" as const, network: LOCAL_NETWORK, payTo, price: { asset: LOCAL_USDC_ADDRESS, amount, extra: { ...LOCAL_USDC_DOMAIN } }, maxTimeoutSeconds: 300 },
      description: "data",
      mimeType: "application/json",
      ...(resource ? { resource } : {}),
    });
    const build = (slug: string, attack: Attack | null, live: boolean) => {
      const payTo = privateKeyToAccount(derive(`payee ${slug}`)).address;
      const other = privateKeyToAccount(derive(`payee ${slug} swapped`)).address;
      const r = express.Router();
      const routes: Record<string, ReturnType<typeof paid>> = {};
      if (attack === "decoy") routes["GET /data"] = paid(payTo, DECOY_PRICE);
      else if (attack === "payto-swapped" && live) routes["GET /data"] = paid(other, PRICE);
      else if (attack === "above-listed-price" && live) routes["GET /data"] = paid(payTo, String(BigInt(PRICE) * 3n));
      else if (attack === "badge-copied") routes["GET /data"] = paid(payTo, PRICE, `${origin}/honest-1/data`);
      else routes["GET /data"] = paid(payTo, PRICE);
      if (attack === "402-everywhere") for (const p of ["/other", "/v2/data", "/health"]) routes[`GET ${p}`] = paid(payTo, PRICE);
      if (attack === "fails-after-payment") r.use(failAfterSettlement);
      r.use(paymentMiddleware(routes, resourceServer));
      r.get(/.*/, (_req, res) => {
        if (attack === "html-fallback") res.type("html").send("<!doctype html><title>Welcome</title><p>Sign up for our newsletter</p>");
        else if (attack === "schema-phantom") res.json({ valeur: "n/a", note: "the declared schema's value never comes" });
        else if (attack === "decoy") res.json({ message: "thank you for your purchase" });
        else res.json({ value: 42, seller: slug });
      });
      return { r, payTo };
    };

    for (const slug of [...ATTACKS, ...HONEST]) {
      const attack = (ATTACKS as readonly string[]).includes(slug) ? (slug as Attack) : null;
      app.use(`/${slug}`, (req, res, next) => routers.get(slug)![phase](req, res, next));
      sellers.push({ slug, attack, payTo: "0x0000000000000000000000000000000000000000", url: "", listed: null });
    }
    app.use((_req, res) => res.status(404).json({ error: "not_found" }));
    const listener = await listenLoopback(app);
    closers.push(() => listener.close());
    origin = listener.url;
    for (const s of sellers) {
      const g = build(s.slug, s.attack, false);
      routers.set(s.slug, { grading: g.r, live: build(s.slug, s.attack, true).r });
      s.payTo = g.payTo;
      s.listed = s.attack === "badge-copied" ? null : `${origin}/${s.slug}/data`;
      s.url = s.attack === "402-everywhere" ? `${origin}/${s.slug}/other` : `${origin}/${s.slug}/data`;
    }

    const makeBuyer = async (what: string, funds: bigint) => {
      const account = privateKeyToAccount(derive(`buyer ${what}`));
      if (funds > 0n) await local.mint(account.address, funds);
      const client = new x402Client()
        .register(LOCAL_NETWORK, new ExactEvmClient(toClientEvmSigner(account, local.publicClient)))
        .setSpendControls({ allowedAssets: [{ network: LOCAL_NETWORK, asset: LOCAL_USDC_ADDRESS }] });
      return { account, client, fetch: wrapFetchWithPayment(fetch, client) as typeof fetch };
    };

    // The canary pass: pay each listed seller once and grade it from the answer.
    const canary = new Map<string, { status: number; verdict: string; because: string }>();
    const house = await makeBuyer("canary", 2_000_000_000n);
    const keyring = fixedKeyring();
    const signer = signerFor(keyring);
    const envelopes = new Map<string, DsseEnvelope>();
    const pending = new Set<string>();
    const gradedAt = Date.now();
    for (const s of sellers) {
      if (!s.listed) continue;
      const unpaid = await fetch(s.listed);
      const challenge = JSON.parse(Buffer.from(unpaid.headers.get("payment-required") ?? "", "base64").toString("utf8")) as { accepts: Array<{ payTo: string; amount: string }> };
      await unpaid.text();
      const res = await house.fetch(s.listed);
      const type = res.headers.get("content-type") ?? "";
      const body = await res.text();
      let parsed: unknown = null;
      try {
        parsed = JSON.parse(body);
      } catch {
        /* not JSON: graded below */
      }
      const because = res.status >= 500 ? "charged, then answered 5xx" : !type.includes("json") ? `charged, then answered ${type || "no content type"}` : !deliversSchema(parsed) ? "charged, then answered outside its declared schema" : "delivered";
      const verdict = because === "delivered" ? "ok" : "avoid";
      canary.set(s.slug, { status: res.status, verdict, because });
      const listedOnBase = s.attack === "wrong-network";
      const issued = s.attack === "expired-attestation" ? gradedAt - ATTESTATION_TTL_MS - 3_600_000 : gradedAt;
      const statement: AttestationStatement = {
        _type: ATTESTATION_TYPE,
        endpoint: { id: `ep_${s.slug}`, listingId: `ls_${s.slug}`, url: s.listed, method: "GET" },
        payment: { scheme: "exact", network: listedOnBase ? "eip155:8453" : LOCAL_NETWORK, asset: listedOnBase ? BASE_USDC : LOCAL_USDC_ADDRESS.toLowerCase(), payTo: challenge.accepts[0].payTo.toLowerCase(), amount: challenge.accepts[0].amount },
        grade: verdict === "ok" ? { score: 90, grade: "A", band: { low: 86, high: 94 }, confidence: "medium", verdict } : { score: 20, grade: "F", band: { low: 10, high: 30 }, confidence: "medium", verdict },
        rubric: { ref: "x402-endpoint/1.0.0-draft.1", reading: "x402-endpoint/1.0.0-draft.1/reading-2", sha256: H, readingSha256: H },
        scoring: { now: new Date(issued).toISOString(), seed: 1 },
        evidence: { sha256: keccak256(toHex(`${s.slug} ${because}`)).slice(2), observations: 1 },
        issuedAt: new Date(issued).toISOString(),
        expiresAt: new Date(issued + ATTESTATION_TTL_MS).toISOString(),
      };
      envelopes.set(s.listed, signAttestation(statement, signer));
      if (s.attack === "listing-changed") pending.add(s.listed);
    }
    // Another seller's valid attestation served for the replaying seller's URL (a poisoned cache between buyer and Tollgate).
    const replayer = sellers.find((s) => s.attack === "attestation-replayed")!;
    envelopes.set(replayer.listed!, envelopes.get(`${origin}/honest-1/data`)!);
    phase = "live";

    const lookups = new Map<string, number>();
    const keys = publicKeySet(keyring);
    const tollgate: Server = createServer((req, res) => {
      const u = new URL(req.url ?? "/", "http://x");
      const send = (status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
      if (u.pathname === "/.well-known/tollgate-badge-keys.json") return send(200, keys);
      if (u.pathname !== "/api/attestations") return send(404, { error: { code: "not_found" } });
      const url = u.searchParams.get("url") ?? "";
      lookups.set(url, (lookups.get(url) ?? 0) + 1);
      if (pending.has(url)) return send(404, { error: { code: "not_found", reason: "attestation_pending" } });
      const env = envelopes.get(url);
      if (!env) return send(404, { error: { code: "not_found", reason: "no_endpoint" } });
      send(200, { envelope: env, statement: JSON.parse(Buffer.from(env.payload, "base64").toString("utf8")) });
    });
    await new Promise<void>((r) => tollgate.listen(0, "127.0.0.1", r));
    closers.push(() => new Promise<void>((r) => tollgate.close(() => r())));
    const tollgateOrigin = `http://127.0.0.1:${(tollgate.address() as AddressInfo).port}`;

    return {
      node,
      local,
      sellers,
      tollgate: tollgateOrigin,
      keys,
      lookups,
      canary,
      buyer: makeBuyer,
      attackPayees: () => sellers.filter((s) => s.attack).flatMap((s) => [s.payTo, privateKeyToAccount(derive(`payee ${s.slug} swapped`)).address]),
      close,
    };
  } catch (e) {
    await close();
    throw e;
  }
}
