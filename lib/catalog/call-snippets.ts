/** "How to call" snippets for an endpoint: the unpaid curl and a paid call through the router that runs as copied (e2e/call-examples.spec.ts). */
import { routerCallUrl } from "@/lib/catalog/select";
import { canonicalUsdc, findAsset } from "@/lib/x402/assets";
import { endpointUrl } from "@/lib/listing-document/endpoint-url";

export interface SnippetEndpoint {
  method: string;
  path: string;
  requestExample: unknown;
  /** Atomic units of priceAsset. */
  priceAmount?: string | null;
  priceAsset?: string | null;
  priceMode?: string | null;
}

export interface CallSnippets {
  sellerUrl: string;
  callUrl: string;
  curl: string;
  client: { kind: "x402-fetch" | "mppx"; code: string };
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** A flat object of scalars as a query string; else "". */
function queryOf(example: unknown): string {
  if (!example || typeof example !== "object" || Array.isArray(example)) return "";
  const entries = Object.entries(example as Record<string, unknown>);
  if (entries.some(([, v]) => v !== null && typeof v === "object")) return "";
  const q = new URLSearchParams(entries.filter(([, v]) => v !== null && v !== undefined).map(([k, v]) => [k, String(v)])).toString();
  return q ? `?${q}` : "";
}

function bodyOf(method: string, example: unknown): string | null {
  if (method === "GET" || method === "HEAD") return null;
  if (example === null || example === undefined) return "{}";
  return typeof example === "string" ? example : JSON.stringify(example);
}

/** What the buyer's client must know of the token: address, chain, EIP-712 domain, a cap. */
interface PayAsset {
  network: string;
  chainId: number | null;
  asset: string | null;
  domain: { name: string; version: string } | null;
  /** Atomic units: the listed fixed price, else none. */
  cap: string | null;
}

function payAsset(listing: { networks: readonly string[] }, e: SnippetEndpoint, network: string | null): PayAsset {
  const net = network ?? listing.networks[0] ?? "eip155:8453";
  const asset = e.priceAsset ?? canonicalUsdc(net)?.address ?? null;
  const known = asset ? findAsset(net, asset) : null;
  const d = known && "domains" in known ? known.domains?.find((x) => x.version !== null) : undefined;
  const chainId = /^eip155:(\d+)$/.exec(net)?.[1];
  return {
    network: net,
    chainId: chainId ? Number(chainId) : null,
    asset,
    domain: d ? { name: d.name, version: d.version! } : null,
    cap: e.priceMode !== "dynamic" && e.priceAmount && /^\d{1,38}$/.test(e.priceAmount) ? e.priceAmount : null,
  };
}

const q = (s: string) => JSON.stringify(s);

function x402Code(callUrl: string, init: string[], body: string | null, a: PayAsset): string {
  const allowed = a.asset
    ? `{ network: ${q(a.network)}, asset: ${q(a.asset)}${a.cap ? `, maxAmountPerPayment: ${q(a.cap)}` : ""} }`
    : `{ network: ${q(a.network)}, asset: "<the token address the seller's 402 names>" }`;
  return `import { wrapFetchWithPayment } from "@x402/fetch";
import { x402Client } from "@x402/core/client";
import { toClientEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { privateKeyToAccount } from "viem/accounts";

const signer = toClientEvmSigner(privateKeyToAccount(process.env.BUYER_PRIVATE_KEY as \`0x\${string}\`));
// @x402/core pays only the tokens it knows by default (mainnet USDC and a few more) and refuses the
// rest: declare the token this endpoint is priced in${a.cap ? ", capped at its listed price (in the token's base units)" : ""}.
const client = new x402Client()
  .register(${q(a.network)}, new ExactEvmScheme(signer))
  .setSpendControls({ allowedAssets: [${allowed}] });
const pay = wrapFetchWithPayment(fetch, client);

// Through Tollgate's router: the seller's 402 comes back, the client signs and retries.
const res = await pay(${q(callUrl)}, {
${[...init, `  headers: { authorization: \`Bearer \${process.env.TOLLGATE_API_KEY}\`${body !== null ? `, "content-type": "application/json"` : ""} },`].join("\n")}
});
console.log(res.status, await res.text());`;
}

function mppCode(callUrl: string, init: string[], body: string | null, a: PayAsset): string {
  const domain = a.domain
    ? `{ name: ${q(a.domain.name)}, version: ${q(a.domain.version)} }`
    : `{ name: "<the token's EIP-712 name>", version: "<its EIP-712 version>" }`;
  const limits = [
    a.chainId !== null ? `  networks: [${a.chainId}],` : null,
    a.asset && a.chainId !== null ? `  currencies: [${q(a.asset)}],` : null,
    a.cap ? `  maxAtomicAmount: ${q(a.cap)},` : null,
  ].filter(Boolean);
  return `import { Mppx } from "mppx/client";
import { charge } from "mppx/evm/client";
import { privateKeyToAccount } from "viem/accounts";

const account = privateKeyToAccount(process.env.BUYER_PRIVATE_KEY as \`0x\${string}\`);
// Your Tollgate API key travels in X-Tollgate-Key: Authorization carries the MPP credential.
// Copy the headers through new Headers(): spreading a Headers object ({ ...h }) drops every header.
const keyed: typeof fetch = (input, init) => {
  const headers = new Headers(init?.headers);
  headers.set("x-tollgate-key", process.env.TOLLGATE_API_KEY!);
  return fetch(input, { ...init, headers });
};
const method = charge({
  account,
  // The token's EIP-712 domain: the EIP-3009 authorization is signed against it.
  authorization: ${domain},
${limits.length ? `  // What this client agrees to pay: this chain, this token${a.cap ? ", at most the listed price (in the token's base units)" : ""}.\n${limits.join("\n")}\n` : ""}});
const mppx = Mppx.create({ methods: [method], fetch: keyed, polyfill: false });

const res = await mppx.fetch(${q(callUrl)}, {
${[...init, body !== null ? `  headers: { "content-type": "application/json" },` : null].filter(Boolean).join("\n")}
});
console.log(res.status, await res.text());`;
}

export function callSnippets(listing: { slug: string; baseUrl: string; protocols: readonly string[]; networks: readonly string[] }, e: SnippetEndpoint, network: string | null): CallSnippets {
  const query = e.method === "GET" ? queryOf(e.requestExample) : "";
  const sellerUrl = endpointUrl(listing.baseUrl, e.path) + query;
  const callUrl = routerCallUrl(listing.slug, e.path) + query;
  const body = bodyOf(e.method, e.requestExample);

  const curl = [
    `curl -i -X ${e.method} ${shellQuote(sellerUrl)}`,
    ...(body !== null ? [`  -H 'content-type: application/json'`, `  -d ${shellQuote(body)}`] : []),
  ].join(" \\\n");

  const init = [`  method: "${e.method}",`, ...(body !== null ? [`  body: JSON.stringify(${body}),`] : [])];
  const mppOnly = listing.protocols.includes("mpp") && !listing.protocols.includes("x402");
  const a = payAsset(listing, e, network);
  const client = mppOnly ? { kind: "mppx" as const, code: mppCode(callUrl, init, body, a) } : { kind: "x402-fetch" as const, code: x402Code(callUrl, init, body, a) };
  return { sellerUrl, callUrl, curl, client };
}
