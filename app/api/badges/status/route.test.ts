import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addResult, revoke, seedListing, setCurrent } from "@/test/badges-db";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { GET } from "./route";

let tdb: TestDatabase;
beforeAll(async () => {
  tdb = await createTestDatabase();
});
afterAll(async () => {
  await tdb?.close();
});

const get = (query: string) => GET(new Request(`http://127.0.0.1:3999/api/badges/status${query}`));
const status = async (result: string, listing: string) => {
  const res = await get(`?${new URLSearchParams({ result, listing })}`);
  expect(res.status).toBe(200);
  return (await res.json()).status as string;
};

describe("GET /api/badges/status", () => {
  it("current, superseded, revoked and unknown", async () => {
    const l = await seedListing(tdb.prisma, { results: [{ total: 50 }, { total: 70 }, { total: 90, provisional: true }] });
    const other = await seedListing(tdb.prisma, { results: [{ total: 80 }] });
    const [older, current, provisional] = l.resultIds;
    expect(await status(current, l.id)).toBe("current");
    expect(await status(older, l.id)).toBe("superseded");
    expect(await status(provisional, l.id)).toBe("unknown"); // never on a badge
    expect(await status(current, other.id)).toBe("unknown"); // not that listing's
    expect(await status("res_nope", l.id)).toBe("unknown");

    const newer = await addResult(tdb.prisma, l.id, { total: 75 });
    await setCurrent(tdb.prisma, l.id, newer);
    expect(await status(current, l.id)).toBe("superseded");
    expect(await status(newer, l.id)).toBe("current");

    await revoke(tdb.prisma, older);
    await revoke(tdb.prisma, newer);
    expect(await status(older, l.id)).toBe("revoked");
    expect(await status(newer, l.id)).toBe("revoked"); // revoked wins even while it is the pointer
  });

  it("a superseded result names the result that replaced it (issue 20 item 2)", async () => {
    const l = await seedListing(tdb.prisma, { results: [{ total: 50 }] });
    const [old] = l.resultIds;
    const body = async (result: string) => (await get(`?${new URLSearchParams({ result, listing: l.id })}`)).json();
    expect(await body(old)).toEqual({ status: "current" });
    const newer = await addResult(tdb.prisma, l.id, { total: 70 });
    await setCurrent(tdb.prisma, l.id, newer);
    expect(await body(old)).toEqual({ status: "superseded", currentResultId: newer });
    expect(await body(newer)).toEqual({ status: "current" });
  });

  it("answers 400 naming the parameter that is missing, unknown, repeated or too long", async () => {
    const cases: [string, string, string][] = [
      ["?listing=l", "result", "missing_parameter"],
      ["?result=r", "listing", "missing_parameter"],
      ["?result=&listing=l", "result", "missing_parameter"],
      ["?result=r&listing=l&x=1", "x", "unknown_parameter"],
      ["?result=r&result=s&listing=l", "result", "duplicate_parameter"],
      [`?result=${"r".repeat(201)}&listing=l`, "result", "invalid_parameter"],
    ];
    for (const [q, param, reason] of cases) {
      const res = await get(q);
      expect(res.status, q).toBe(400);
      expect((await res.json()).error, q).toMatchObject({ code: "bad_request", param, reason });
    }
  });
});
