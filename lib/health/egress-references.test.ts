/** The monitor's own outage in a small catalog: fewer hosts than the share can judge, so its references decide (docs/ARCHITECTURE.md). */
import { freePort, listenHttp, type LocalServer } from "@/test/net-servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { fixtureListings } from "@/sellers";
import { writeListing } from "@/lib/listings/save";
import { createTestOrganization } from "@/test/ledger";
import { referencesAnswer } from "@/lib/net/references";
import { EGRESS_MIN_HOSTS, egressOutage, needsReferences, runHealthSweep } from "./sweep-health";

let t: TestDatabase;
let reference: LocalServer;
let referenceUrl: string;
let silentReference: string;
const sellerPorts: number[] = [];
const ids: string[] = [];

beforeAll(async () => {
  t = await createTestDatabase();
  reference = await listenHttp((_req, res) => res.writeHead(204).end());
  referenceUrl = `http://127.0.0.1:${reference.port}/`;
  silentReference = `http://127.0.0.1:${await freePort()}/`;
  const org = await createTestOrganization(t.prisma);
  const doc = fixtureListings("http://127.0.0.1:1")["agent-verdict"];
  // Two sellers on two hosts, neither listening: a catalog too small for the share to say whose outage it is.
  for (let i = 0; i < 2; i++) {
    sellerPorts.push(await freePort());
    ids.push((await writeListing({ ...doc, slug: `small-${i}`, baseUrl: `http://127.0.0.1:${sellerPorts[i]}/agent-verdict` }, { organizationId: org, publicationState: "published" })).id);
  }
});
afterAll(async () => {
  await reference?.close();
  await t?.close();
});

const h = (host: string, unanswered: boolean) => ({ host, unanswered });

describe("fewer hosts than the share can judge", () => {
  it("every one silent: our outage only when no reference answered; one answering host, or no references, and it is the sellers'", () => {
    const silent = ["a", "b"].map((x) => h(x, true));
    expect(needsReferences(silent)).toBe(true);
    expect(egressOutage(silent, false)).toBe(true);
    expect(egressOutage(silent, true)).toBe(false);
    expect(egressOutage(silent, null)).toBe(false);
    const oneAnswers = [h("a", true), h("b", false)];
    expect(needsReferences(oneAnswers)).toBe(false);
    expect(egressOutage(oneAnswers, false)).toBe(false);
    expect(needsReferences([])).toBe(false);
    // Enough hosts: the share decides, and an answering reference overrules it (one seller can hold many hosts).
    const many = Array.from({ length: EGRESS_MIN_HOSTS }, (_, i) => h(String(i), true));
    expect(needsReferences(many)).toBe(false);
    expect(egressOutage(many, null)).toBe(true);
    expect(egressOutage(many, false)).toBe(true);
    expect(egressOutage(many, true)).toBe(false);
  });

  it("referencesAnswer: any status from any reference is an answer; none configured is no opinion", async () => {
    expect(await referencesAnswer([])).toBeNull();
    expect(await referencesAnswer([silentReference], 2_000)).toBe(false);
    expect(await referencesAnswer([silentReference, referenceUrl], 2_000)).toBe(true);
    expect(await referencesAnswer([referenceUrl], 2_000, { through: "resolver" })).toBeNull();
  });

  it("a sweep whose every seller and every reference is silent records nothing; with a reference answering, the sellers are down", async () => {
    const allowHosts = sellerPorts.map((p) => `127.0.0.1:${p}`);
    const at = (minutes: number) => new Date(Date.parse("2026-12-05T12:00:00Z") + minutes * 60_000);
    const samples = async (when: Date) =>
      t.prisma.healthSample.findMany({ where: { listingId: { in: ids }, at: { gte: when, lte: new Date(when.getTime() + 60_000) } }, select: { outcome: true } });

    const ours = await runHealthSweep({ allowHosts, deadlineMs: 2_000, now: at(0), references: [silentReference] });
    expect(ours).toMatchObject({ unmeasured: 2, down: 0 });
    expect(await samples(at(0))).toEqual([]);

    const theirs = await runHealthSweep({ allowHosts, deadlineMs: 2_000, now: at(5), references: [silentReference, referenceUrl] });
    expect(theirs).toMatchObject({ unmeasured: 0, down: 2 });
    expect((await samples(at(5))).map((s) => s.outcome)).toEqual(["down", "down"]);

    // No references configured: nothing can say it was ours, so the sellers' silence is recorded, as before.
    const unknown = await runHealthSweep({ allowHosts, deadlineMs: 2_000, now: at(10), references: [] });
    expect(unknown).toMatchObject({ unmeasured: 0, down: 2 });
  });
});
