/**
 * Fixtures for the discovery API's tests and bench: a listing made discoverable the way the product
 * makes it, a probe evidence row holding each endpoint's 402 and a readiness result pointing at it,
 * set as the listing's current result (the trigger then writes its discovery_resources rows).
 */
import type { PrismaClient } from "@/lib/generated/prisma/client";
import type { ProbeEvidence } from "@/lib/evidence";
import { challenge, probed } from "@/test/trust";

export interface Accept {
  scheme?: string;
  network?: string;
  asset?: string;
  payTo: string;
  amount?: string;
}

export interface DiscoverableEndpoint {
  method: string;
  path: string;
  accepts: Accept[];
  /** Keep the bazaar extension (default true); false drops `extensions` from the 402. */
  bazaar?: boolean;
  /** Extra extension keys declared beside bazaar. */
  extraExtensions?: string[];
  /** The 402's whole `extensions` object, as given (a spec example). */
  extensions?: Record<string, unknown>;
}

export const USDC_BASE = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";

/** The 402 each endpoint answers, probed as lib/probe would record it. */
export function evidenceFor(baseUrl: string, endpoints: DiscoverableEndpoint[], probedAt = new Date()): ProbeEvidence {
  return {
    version: 2,
    probedAt: probedAt.toISOString(),
    vantage: "local",
    baseUrl,
    endpoints: endpoints.map((e) => {
      const url = `${baseUrl.replace(/\/+$/, "")}${e.path}`;
      const pr = challenge((p) => {
        p.resource = { url, description: `${e.method} ${e.path}`, mimeType: "application/json" };
        p.accepts = e.accepts.map((a) => ({ scheme: a.scheme ?? "exact", network: a.network ?? "eip155:8453", amount: a.amount ?? "10000", asset: a.asset ?? USDC_BASE, payTo: a.payTo, maxTimeoutSeconds: 60, extra: { name: "USD Coin", version: "2" } }));
        if (e.extensions) p.extensions = e.extensions;
        else if (e.bazaar === false) delete p.extensions;
        else {
          p.extensions.bazaar.info.input.method = e.method;
          for (const k of e.extraExtensions ?? []) p.extensions[k] = { info: {} };
        }
      });
      return probed({ pr, url }, { method: e.method, path: e.path });
    }),
    logo: null,
    docs: null,
    discovery: null,
    findings: [],
  } as ProbeEvidence;
}

/** Stores the evidence and a readiness result over it, and moves the listing's pointer there. */
export async function makeDiscoverable(prisma: PrismaClient, listingId: string, endpoints: DiscoverableEndpoint[], opts: { total?: number; band?: string; probedAt?: Date } = {}): Promise<string> {
  const listing = await prisma.listing.findUniqueOrThrow({ where: { id: listingId }, select: { baseUrl: true } });
  return storeEvidence(prisma, listingId, evidenceFor(listing.baseUrl, endpoints, opts.probedAt), opts);
}

/** A probe's evidence (lib/probe's own, or made here) stored with a current result over it. */
export async function storeEvidence(prisma: PrismaClient, listingId: string, evidence: ProbeEvidence, opts: { total?: number; band?: string } = {}): Promise<string> {
  const pe = await prisma.probeEvidence.create({ data: { listingId, vantage: "local", probedAt: new Date(evidence.probedAt), ok: true, evidence: evidence as object } });
  const r = await prisma.readinessResult.create({
    data: { listingId, evidenceId: pe.id, rubricVersion: "readiness/1.0.0", total: opts.total ?? 82, rawTotal: opts.total ?? 82, band: opts.band ?? "Ready", provisional: false, caps: [], dimensions: [], rules: [], improvements: [], document: {} },
  });
  await prisma.listing.update({ where: { id: listingId }, data: { currentResultId: r.id } });
  return r.id;
}
