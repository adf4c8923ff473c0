/**
 * The evidence routes on stored grades (PGlite, or server PostgreSQL with TEST_DATABASE_URL): the
 * format-2 bundle and its receipts served as their canonical bytes, the verifier's --from (the README's command)
 * run against the real route handlers with and without --with-receipts, and a format-1 bundle stored
 * before format 2 still served and verified (its receipts route: 404 no_receipts).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildBundleV1, scoreOptionsOf } from "@/lib/attest/bundle";
import { signAttestation } from "@/lib/attest/attestation";
import { gradeListing, prepareGrade, readEndpointTerms, writeGrade } from "@/lib/attest/sweep";
import { publicKeySet, signerFor } from "@/lib/badges/keys";
import { transaction } from "@/lib/sql";
import { loadRubric, scoreSubject } from "@/lib/trust/engine";
import { readTrustSubjects } from "@/lib/trust/observe";
import { fixedKeyring } from "@/test/badges";
import { GRADE_NOW, gradedListing } from "@/test/attest";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { run } from "../../../../../verifier/src/cli.ts";
import { GET as attestation } from "../attestation/route";
import { GET as receipts } from "./receipts/route";
import { GET as evidence } from "./route";

let db: TestDatabase;
let server: Server;
let origin: string;
const served: string[] = [];
const keyring = fixedKeyring();
const signer = signerFor(keyring);
const graded: { v2: string; v1: string; v1Bundle: string } = { v2: "", v1: "", v1Bundle: "" };

type Route = (req: Request, ctx: { params: Promise<{ id: string }> }) => Promise<Response>;
const ROUTES: Array<[RegExp, Route]> = [
  [/^\/api\/endpoints\/([^/]+)\/attestation$/, attestation],
  [/^\/api\/endpoints\/([^/]+)\/evidence$/, evidence],
  [/^\/api\/endpoints\/([^/]+)\/evidence\/receipts$/, receipts],
];

beforeAll(async () => {
  db = await createTestDatabase();
  // Format 2, as the sweep writes it now.
  const a = await gradedListing(db.prisma, 4);
  await gradeListing(db.prisma, a.id, { now: GRADE_NOW, signer });
  graded.v2 = a.endpointId;
  // Format 1, as the sweep wrote it before: the same evidence bundled and signed the old way.
  const b = await gradedListing(db.prisma, 4);
  const rubric = loadRubric();
  const [terms] = await readEndpointTerms(db.prisma, b.id);
  const [subject] = await readTrustSubjects(db.prisma, b.id, { raw: true });
  const g = prepareGrade(rubric, terms, subject, GRADE_NOW, signer);
  const v1 = buildBundleV1({ endpoint: g.statement.endpoint, rubric, scoring: { now: GRADE_NOW, seed: g.statement.scoring.seed, bandOptions: {} }, subject });
  const result = scoreSubject(rubric, v1.document.subject, scoreOptionsOf(v1.document));
  const statement = { ...g.statement, grade: { score: result.score, grade: result.grade, band: result.band && { low: result.band.low, high: result.band.high }, confidence: result.confidence, verdict: result.verdict }, evidence: { sha256: v1.sha256, observations: v1.document.subject.observations.length } };
  await transaction(db.prisma, (tx) => writeGrade(tx, { ...g, result, statement, envelope: signAttestation(statement, signer), bundle: { sha256: v1.sha256, bytes: v1.bytes, observations: statement.evidence.observations, receipts: null } }));
  graded.v1 = b.endpointId;
  graded.v1Bundle = v1.sha256;

  server = createServer(async (req, res) => {
    const url = new URL(req.url!, "http://127.0.0.1");
    let answer: Response;
    if (url.pathname === "/.well-known/tollgate-badge-keys.json") answer = Response.json(publicKeySet(keyring));
    else {
      const hit = ROUTES.map(([re, route]) => [re.exec(url.pathname), route] as const).find(([m]) => m);
      const headers = new Headers(Object.entries(req.headers).map(([k, v]) => [k, String(v)] as [string, string]));
      answer = hit ? await hit[1](new Request(url, { headers }), { params: Promise.resolve({ id: decodeURIComponent(hit[0]![1]) }) }) : new Response("not found", { status: 404 });
    }
    if (/\/evidence/.test(url.pathname)) served.push(`${url.pathname.split("/").pop()} ${answer.headers.get("content-encoding") ?? "identity"}`);
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 180_000);
afterAll(async () => {
  server?.close();
  await db?.close();
});

const get = (route: Route, id: string, query = "", headers: Record<string, string> = {}) => route(new Request(`http://127.0.0.1:3999/api/endpoints/${id}/evidence${query}`, { headers }), { params: Promise.resolve({ id }) });
async function cli(...argv: string[]) {
  let out = "";
  const exit = await run(argv, (s) => void (out += s));
  return { exit, out };
}

describe("GET /api/endpoints/:id/evidence and /evidence/receipts", () => {
  it("serves the format-2 bundle as its canonical bytes, with their hash as ETag and Digest", async () => {
    const plain = await get(evidence, graded.v2);
    expect(plain.status).toBe(200);
    const bytes = Buffer.from(await plain.arrayBuffer());
    const bundle = JSON.parse(bytes.toString("utf8"));
    expect(bundle._type).toBe("tollgate.evidence-bundle/2");
    expect(plain.headers.get("content-encoding")).toBeNull();
    const hash = plain.headers.get("etag")!.slice(1, -1);
    expect(plain.headers.get("digest")).toBe(`sha-256=${Buffer.from(hash, "hex").toString("base64")}`);

    // Never compressed by the route, whatever the client accepts: `next start` compresses on the wire,
    // and a route that set Content-Encoding itself was gzipped twice there.
    const asked = await get(evidence, graded.v2, "", { "accept-encoding": "br, gzip;q=0.8" });
    expect(asked.headers.get("content-encoding")).toBeNull();
    expect(Buffer.from(await asked.arrayBuffer()).equals(bytes)).toBe(true);
    expect((await get(evidence, graded.v2, "", { "if-none-match": `"${hash}"` })).status).toBe(304);

    // Its receipts, beside it, named by the bundle; by the bundle's hash too.
    const r = await get(receipts, graded.v2, `?sha256=${hash}`, { "accept-encoding": "gzip" });
    expect(r.status).toBe(200);
    expect(r.headers.get("x-evidence-bundle")).toBe(hash);
    expect(r.headers.get("cache-control")).toMatch(/immutable/);
    const doc = JSON.parse(Buffer.from(await r.arrayBuffer()).toString("utf8"));
    expect(doc).toMatchObject({ _type: "tollgate.evidence-receipts/1", endpointId: graded.v2, root: bundle.receipts.root });
    expect(doc.receipts).toHaveLength(bundle.receipts.leaves);
  });

  it("the README's command verifies it from the routes, the receipts too with --with-receipts", async () => {
    served.length = 0;
    const r = await cli("--from", origin, "--endpoint", graded.v2, "--with-receipts");
    expect(r.exit, r.out).toBe(0);
    expect(served.sort()).toEqual(["evidence identity", "receipts identity"]);
    expect(r.out).toMatch(/^ok {3}receipts: \d+ receipts under root/m);
    expect(r.out).toMatch(/^VERIFIED /m);
  });

  it("a format-1 bundle stored before format 2 is still served and verified; it has no receipts document", async () => {
    const plain = await get(evidence, graded.v1);
    expect(plain.headers.get("etag")).toBe(`"${graded.v1Bundle}"`);
    expect(JSON.parse(Buffer.from(await plain.arrayBuffer()).toString("utf8"))._type).toBe("tollgate.evidence-bundle/1");
    const r = await cli("--from", origin, "--endpoint", graded.v1);
    expect(r.exit, r.out).toBe(0);
    const none = await get(receipts, graded.v1);
    expect(none.status).toBe(404);
    expect((await none.json()).error).toMatchObject({ reason: "no_receipts" });
    // Asked for receipts anyway: the fetch is refused, named, as input.
    expect((await cli("--from", origin, "--endpoint", graded.v1, "--with-receipts")).exit).toBe(3);
  });

  it("400 for a bad hash, 404 no_bundle for another endpoint's", async () => {
    expect((await get(receipts, graded.v2, "?sha256=XYZ")).status).toBe(400);
    const other = await get(receipts, graded.v2, `?sha256=${graded.v1Bundle}`);
    expect(other.status).toBe(404);
    expect((await other.json()).error).toMatchObject({ reason: "no_bundle" });
  });
});
