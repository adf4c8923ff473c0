/**
 * Payment rings (docs/RANK.md "Payment rings"): sellers whose payees pay one another's listings, read
 * from the settlement ledger once per sweep, and each ring listing's payers that are the ring's own.
 */
import { MIN_DISTINCT_PAYERS } from "@/lib/rank/score";
import { SERVER_SESSION, utcTimestamp } from "@/lib/facts/aggregate";
import { rows, session, type Client } from "@/lib/sql";

/** A listing's payment ring: organisations whose payees pay one another's listings (a cycle in the ledger). */
export interface WashRing {
  /** The ring's organisations, this listing's first. */
  organizations: string[];
  /** Payers excluded as the ring's (ring_payee, ring_only, funded_by_ring) over the payers before the check. */
  ringPayers: number;
  payersBefore: number;
  /** At least MIN_DISTINCT_PAYERS ring payers making at least half of the payers: WASH_RING_FLAG. */
  flagged: boolean;
  why: string;
}

/** A payer a ring listing's traction leaves out: a payee of another ring seller's listing, or one paying only the ring. */
export interface RingExclusion {
  payer: string;
  reason: "ring_payee" | "ring_only";
  /** ring_payee: a listing of another ring seller this payer is a payee of. */
  listing?: string;
}

/** The ring summary of a listing from its exclusions: the flag when the ring's payers are most of its payers. */
export function ringSummary(organizations: string[], excluded: ReadonlyArray<{ reason: string }>, payersBefore: number): WashRing {
  const ringPayers = excluded.filter((e) => e.reason === "ring_payee" || e.reason === "ring_only" || e.reason === "funded_by_ring").length;
  const flagged = ringPayers >= MIN_DISTINCT_PAYERS && 2 * ringPayers >= payersBefore;
  const why =
    `${ringPayers} of its ${payersBefore} payers in 30 days belong to a payment ring of ${organizations.length} sellers whose payees pay one another's listings` +
    (flagged ? " (most of its payers: its traction is the ring's own)" : " (left out of its traction; the rest of its payers count)");
  return { organizations, ringPayers, payersBefore, flagged, why };
}

/**
 * The ledger's payment rings in the window, read once per sweep: an edge from organisation A to B when
 * a wallet paid as a payee of A's listings paid one of B's listings (settled, not the house's); a
 * ring is a cycle of such edges (a strongly connected set of two or more organisations). For the
 * rings' listings, each payer's paid organisations, and the rings' payee wallets.
 */
export interface RingLedger {
  orgOf: Map<string, string>;
  /** Organisation → its ring's organisations (itself first), for organisations in a ring. */
  ringOf: Map<string, string[]>;
  /** Wallet → the listings it was paid as the payee of, for wallets that also paid. */
  payeeOf: Map<string, Array<{ lid: string; org: string }>>;
  /** Ring listing id → its payers, each with the organisations it paid in the window. */
  payersOf: Map<string, Array<{ payer: string; orgs: string[] }>>;
  /** Organisation in a ring → its payee wallets. */
  payees: Map<string, string[]>;
}

export async function ringLedger(c: Client, now: Date): Promise<RingLedger> {
  const at = utcTimestamp(now);
  const window = `p."status" = 'settled' AND NOT p."house" AND p."createdAt" >= $1::timestamp - interval '30 days' AND p."createdAt" <= $1::timestamp`;
  // The payee wallets first, then only the payments whose payer is one of them: joining every settled
  // payment of the window to its listing before finding the payees was most of this read's time.
  const edges = await session(
    c,
    (conn) =>
      rows<{ payer: string; payeeLid: string; payeeOrg: string; paidLid: string; paidOrg: string }>(
        conn,
        `WITH payees AS MATERIALIZED (SELECT DISTINCT p."listingId" AS lid, lower(COALESCE(p."chainTo", p."quotedPayTo")) AS w FROM "router_payments" p
                                       WHERE ${window} AND COALESCE(p."chainTo", p."quotedPayTo") IS NOT NULL),
              paid AS MATERIALIZED (SELECT DISTINCT lower(p."payer") AS payer, p."listingId" AS lid FROM "router_payments" p
                                     WHERE ${window} AND lower(p."payer") IN (SELECT w FROM payees))
         SELECT DISTINCT x.payer, e.lid AS "payeeLid", le."organizationId" AS "payeeOrg", x.lid AS "paidLid", lp."organizationId" AS "paidOrg"
           FROM paid x JOIN payees e ON e.w = x.payer
           JOIN "listings" le ON le."id" = e.lid JOIN "listings" lp ON lp."id" = x.lid
          WHERE le."organizationId" <> lp."organizationId"
          ORDER BY 1, 2, 3, 4, 5`,
        at,
      ),
    SERVER_SESSION,
  );
  const orgOf = new Map<string, string>();
  const payeeOf = new Map<string, Array<{ lid: string; org: string }>>();
  const out = new Map<string, Set<string>>();
  for (const e of edges) {
    orgOf.set(e.payeeLid, e.payeeOrg);
    orgOf.set(e.paidLid, e.paidOrg);
    const had = payeeOf.get(e.payer) ?? [];
    if (!had.some((x) => x.lid === e.payeeLid)) payeeOf.set(e.payer, [...had, { lid: e.payeeLid, org: e.payeeOrg }]);
    out.set(e.payeeOrg, (out.get(e.payeeOrg) ?? new Set()).add(e.paidOrg));
  }
  const ringOf = new Map<string, string[]>();
  for (const comp of stronglyConnected(out)) {
    if (comp.length < 2) continue;
    const sorted = [...comp].sort();
    for (const o of sorted) ringOf.set(o, [o, ...sorted.filter((x) => x !== o)]);
  }
  const payersOf = new Map<string, Array<{ payer: string; orgs: string[] }>>();
  const payees = new Map<string, string[]>();
  if (ringOf.size > 0) {
    const orgs = [...ringOf.keys()];
    const [paid, wallets] = await Promise.all([
      rows<{ lid: string; org: string; payer: string; orgs: string[] }>(
        c,
        `WITH rp AS (SELECT DISTINCT p."listingId" AS lid, l."organizationId" AS org, lower(p."payer") AS payer FROM "router_payments" p JOIN "listings" l ON l."id" = p."listingId"
                      WHERE ${window} AND l."organizationId" = ANY($2::text[])),
              spend AS (SELECT lower(p."payer") AS payer, array_agg(DISTINCT l."organizationId") AS orgs FROM "router_payments" p JOIN "listings" l ON l."id" = p."listingId"
                         WHERE ${window} AND lower(p."payer") IN (SELECT payer FROM rp) GROUP BY 1)
         SELECT rp.lid, rp.org, rp.payer, s.orgs FROM rp JOIN spend s ON s.payer = rp.payer`,
        at,
        orgs,
      ),
      rows<{ org: string; w: string }>(
        c,
        `SELECT DISTINCT l."organizationId" AS org, lower(COALESCE(p."chainTo", p."quotedPayTo")) AS w FROM "router_payments" p JOIN "listings" l ON l."id" = p."listingId"
          WHERE ${window} AND l."organizationId" = ANY($2::text[]) AND COALESCE(p."chainTo", p."quotedPayTo") IS NOT NULL`,
        at,
        orgs,
      ),
    ]);
    for (const r of paid) {
      orgOf.set(r.lid, r.org);
      payersOf.set(r.lid, [...(payersOf.get(r.lid) ?? []), { payer: r.payer, orgs: r.orgs }]);
    }
    for (const r of wallets) if (/^0x[0-9a-f]{40}$/.test(r.w)) payees.set(r.org, [...(payees.get(r.org) ?? []), r.w]);
  }
  return { orgOf, ringOf, payeeOf, payersOf, payees };
}

/** Tarjan's strongly connected components of a directed graph. */
function stronglyConnected(out: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const comps: string[][] = [];
  let n = 0;
  const nodes = new Set<string>([...out.keys(), ...[...out.values()].flatMap((s) => [...s])]);
  const visit = (v: string) => {
    index.set(v, n);
    low.set(v, n++);
    stack.push(v);
    onStack.add(v);
    for (const w of out.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        comp.push(w);
      } while (w !== v);
      comps.push(comp);
    }
  };
  for (const v of [...nodes].sort()) if (!index.has(v)) visit(v);
  return comps;
}

/**
 * One listing's ring exclusions from the ledger: a payer that is a payee of another ring seller's
 * listing (ring_payee), or one that paid two or more of the ring's sellers and no one outside it
 * (ring_only); and the other ring sellers' payee wallets, whose funding of a payer the chain read
 * checks (funded_by_ring).
 */
export function ringExclusions(lid: string, rings: RingLedger): { organizations: string[]; excluded: RingExclusion[]; funders: string[] } {
  const org = rings.orgOf.get(lid);
  const ring = org ? rings.ringOf.get(org) : undefined;
  if (!org || !ring) return { organizations: [], excluded: [], funders: [] };
  const others = new Set(ring.slice(1));
  const members = new Set(ring);
  const excluded: RingExclusion[] = [];
  for (const { payer, orgs } of rings.payersOf.get(lid) ?? []) {
    const asPayee = (rings.payeeOf.get(payer) ?? []).find((x) => others.has(x.org));
    if (asPayee) excluded.push({ payer, reason: "ring_payee", listing: asPayee.lid });
    else if (orgs.length >= 2 && orgs.every((o) => members.has(o))) excluded.push({ payer, reason: "ring_only" });
  }
  const funders = [...new Set(ring.slice(1).flatMap((o) => rings.payees.get(o) ?? []))].sort();
  return { organizations: ring, excluded: excluded.sort((a, b) => (a.payer < b.payer ? -1 : 1)), funders };
}
