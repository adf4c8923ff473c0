/**
 * The documents each fixture seller publishes beside its endpoints: `/.well-known/x402` (the x402
 * discovery list of resources), `/openapi.json` (built with mppx's own `generateProxy`, so the
 * `x-payment-info` extension is what mppx emits, then completed with descriptions and schemas), a
 * docs page, and the ListingDocument a seller would submit.
 */
import { generateProxy } from "mppx/discovery";
import type { ListingDocument } from "@/lib/listing-document/document";
import type { SellerDescription } from "./types";

export function wellKnownX402(seller: SellerDescription, sellerUrl: string): unknown {
  return {
    version: 1,
    resources: seller.endpoints.filter((e) => e.payable).map((e) => `${sellerUrl}${e.path}`),
    instructions: seller.walkthrough,
  };
}

export function openApi(seller: SellerDescription, sellerUrl: string): Record<string, unknown> {
  const doc = generateProxy({
    info: { title: seller.title, version: "1.0.0" },
    serviceInfo: { categories: [seller.category], docs: { homepage: sellerUrl, apiReference: `${sellerUrl}/docs` } },
    routes: seller.endpoints.map((e) => ({
      method: e.method,
      path: e.path,
      summary: e.summary,
      payment: e.payable && e.pricing?.machine
        ? {
            amount: e.pricing.machine.amount,
            currency: e.pricing.machine.asset,
            intent: "charge",
            method: seller.protocols.includes("mpp") ? "evm" : "x402",
            description: e.pricing.label ?? undefined,
            // Not in mppx's schema (it is loose): x402 buyers need the network to read the asset.
            network: e.pricing.machine.network,
          }
        : null,
      ...(e.requestSchema && e.method !== "GET"
        ? { requestBody: { required: true, content: { "application/json": { schema: e.requestSchema, ...(e.requestExample != null ? { example: e.requestExample } : {}) } } } }
        : {}),
    })),
  });
  // Complete what generateProxy leaves out: the operation description, the response schema, the server.
  const paths = doc.paths as Record<string, Record<string, Record<string, unknown>>>;
  for (const e of seller.endpoints) {
    const op = paths[e.path]?.[e.method.toLowerCase()];
    if (!op) continue;
    op.description = e.description;
    op.operationId = `${e.method.toLowerCase()}${e.path.replace(/[^A-Za-z0-9]+/g, "_")}`;
    const responses = op.responses as Record<string, Record<string, unknown>>;
    if (e.responseSchema) responses["200"] = { description: "Successful response", content: { "application/json": { schema: e.responseSchema } } };
  }
  (doc.info as Record<string, unknown>).description = seller.description;
  (doc.info as Record<string, unknown>)["x-logo"] = seller.logo ? { url: `${sellerUrl}/${seller.logo.file}` } : undefined;
  doc.servers = [{ url: sellerUrl }];
  return doc;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

export function docsPage(seller: SellerDescription, sellerUrl: string): string {
  const endpoints = seller.endpoints
    .map((e) => `<h3 id="${escapeHtml(e.method.toLowerCase() + e.path.replace(/\//g, "-"))}">${e.method} ${escapeHtml(e.path)}</h3>
<p>${escapeHtml(e.description)}</p>
<p>Price: ${escapeHtml(e.pricing?.label ?? "free")}</p>
${e.requestSchema ? `<h4>Request schema</h4><pre>${escapeHtml(JSON.stringify(e.requestSchema, null, 2))}</pre>` : "<p>No parameters.</p>"}
${e.requestExample != null ? `<h4>Example request</h4><pre>${escapeHtml(JSON.stringify(e.requestExample, null, 2))}</pre>` : ""}
${e.responseSchema ? `<h4>Response schema</h4><pre>${escapeHtml(JSON.stringify(e.responseSchema, null, 2))}</pre>` : ""}`)
    .join("\n");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(seller.title)}</title></head><body>
<h1>${escapeHtml(seller.title)}</h1>
<p>${escapeHtml(seller.description)}</p>
<h2>Paying</h2><p>${escapeHtml(seller.walkthrough)}</p>
<h2>Operations</h2><ul>${Object.entries(seller.operations).filter(([, v]) => v).map(([k, v]) => `<li>${escapeHtml(k)}: ${escapeHtml(String(v))}</li>`).join("")}</ul>
<h2>Endpoints</h2>${endpoints}
<p>Base URL: <code>${escapeHtml(sellerUrl)}</code></p>
</body></html>`;
}

/** The listing this seller would submit, as a ListingDocument rooted at its prefix. */
export function listingFor(seller: SellerDescription, origin: string): ListingDocument {
  const sellerUrl = `${origin.replace(/\/+$/, "")}/${seller.slug}`;
  return {
    slug: seller.slug,
    title: seller.title,
    shortDescription: seller.shortDescription,
    description: seller.description,
    logoUrl: `${sellerUrl}/${seller.logo?.file ?? "logo.png"}`,
    category: seller.category,
    homepageUrl: sellerUrl,
    baseUrl: sellerUrl,
    docsUrl: `${sellerUrl}/docs`,
    walkthrough: seller.walkthrough,
    discoveryUrl: seller.discovery.wellKnown ? `${sellerUrl}/.well-known/x402` : seller.discovery.openapi ? `${sellerUrl}/openapi.json` : null,
    protocols: seller.protocols,
    networks: seller.networks,
    operations: seller.operations,
    endpoints: seller.endpoints.map((e) => ({
      method: e.method,
      path: e.path,
      description: e.description,
      requestSchema: e.requestSchema,
      noParameters: e.noParameters ?? false,
      responseSchema: e.responseSchema,
      requestExample: e.requestExample,
      payable: e.payable,
      pricing: e.pricing,
      docsUrl: `${sellerUrl}/docs#${e.method.toLowerCase()}${e.path.replace(/\//g, "-")}`,
    })),
  };
}
