/**
 * "How to call" snippets for a listing's endpoint (issue 19 item 5): the unpaid request that answers
 * the seller's 402 (curl, straight to the seller: no key, no payment, so a buyer sees the challenge
 * for themselves), and a paid call with @x402/fetch through the router's call URL (routerCallUrl,
 * docs/ROUTER.md: the seller's 402 comes back untouched, the buyer signs, the router records the
 * payment). An MPP-only listing gets the mppx client instead (docs/ROUTER.md "Paying an MPP listing").
 */
import { routerCallUrl } from "@/lib/catalog/select";

export interface SnippetEndpoint {
  method: string;
  path: string;
  requestExample: unknown;
}

export interface CallSnippets {
  /** The seller's own URL for the endpoint. */
  sellerUrl: string;
  /** The router's call URL for it. */
  callUrl: string;
  curl: string;
  /** "x402-fetch" or "mppx", and the code. */
  client: { kind: "x402-fetch" | "mppx"; code: string };
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** A GET example as a query string, when it is a flat object of scalars; else "". */
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

export function callSnippets(listing: { slug: string; baseUrl: string; protocols: readonly string[]; networks: readonly string[] }, e: SnippetEndpoint, network: string | null): CallSnippets {
  const query = e.method === "GET" ? queryOf(e.requestExample) : "";
  const sellerUrl = listing.baseUrl.replace(/\/+$/, "") + "/" + e.path.replace(/^\/+/, "") + query;
  const callUrl = routerCallUrl(listing.slug, e.path) + query;
  const body = bodyOf(e.method, e.requestExample);

  const curl = [
    `curl -i -X ${e.method} ${shellQuote(sellerUrl)}`,
    ...(body !== null ? [`  -H 'content-type: application/json'`, `  -d ${shellQuote(body)}`] : []),
  ].join(" \\\n");

  const init = [
    `  method: "${e.method}",`,
    body !== null ? `  body: JSON.stringify(${body}),` : null,
  ].filter(Boolean);
  const mppOnly = listing.protocols.includes("mpp") && !listing.protocols.includes("x402");
  const net = network ?? listing.networks[0] ?? "eip155:8453";
  const client = mppOnly
    ? {
        kind: "mppx" as const,
        code: `import { Mppx } from "mppx/client";
import { charge } from "mppx/evm/client";
import { privateKeyToAccount } from "viem/accounts";

const account = privateKeyToAccount(process.env.BUYER_PRIVATE_KEY as \`0x\${string}\`);
// Your Tollgate API key travels in X-Tollgate-Key: Authorization carries the MPP credential.
const keyed: typeof fetch = (input, init) =>
  fetch(input, { ...init, headers: { ...init?.headers, "x-tollgate-key": process.env.TOLLGATE_API_KEY! } });
const mppx = Mppx.create({ methods: [charge({ account })], fetch: keyed, polyfill: false });

const res = await mppx.fetch("${callUrl}", {
${[...init, body !== null ? `  headers: { "content-type": "application/json" },` : null].filter(Boolean).join("\n")}
});
console.log(res.status, await res.text());`,
      }
    : {
        kind: "x402-fetch" as const,
        code: `import { wrapFetchWithPayment } from "@x402/fetch";
import { x402Client } from "@x402/core/client";
import { toClientEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { privateKeyToAccount } from "viem/accounts";

const signer = toClientEvmSigner(privateKeyToAccount(process.env.BUYER_PRIVATE_KEY as \`0x\${string}\`));
const pay = wrapFetchWithPayment(fetch, new x402Client().register("${net}", new ExactEvmScheme(signer)));

// Through Tollgate's router: the seller's 402 comes back, the client signs and retries.
const res = await pay("${callUrl}", {
${[...init, `  headers: { authorization: \`Bearer \${process.env.TOLLGATE_API_KEY}\`${body !== null ? `, "content-type": "application/json"` : ""} },`].join("\n")}
});
console.log(res.status, await res.text());`,
      };
  return { sellerUrl, callUrl, curl, client };
}
