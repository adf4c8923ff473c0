import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/lib/testing/db";
import { medianOfAmounts, parseAmounts, parseTextArray } from "./aggregate";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t?.close();
});

describe("the settled median, taken in memory", () => {
  it("is percentile_cont(0.5) over tollgate_atomic_to_units(amount, 0), to the bit", async () => {
    let seed = 7;
    const rnd = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const cases: (string | null)[][] = [
      ["9600"],
      ["9600", "9700"],
      ["1", "2", "4"],
      ["3", "1", "2", "10"],
      ["25060", "25070", "25000", "25010", "25040", "25050"],
      ["12345678901234567890123", "12345678901234567890125"],
      ["x", "9600", null, "-5", "1.5", "9800"],
      ["abc"],
    ];
    for (let i = 0; i < 40; i++) cases.push(Array.from({ length: 1 + Math.floor(rnd() * 12) }, () => String(Math.floor(rnd() * 10 ** (1 + Math.floor(rnd() * 9))))));
    for (const amounts of cases) {
      const [{ m }] = await t.query<{ m: number | null }>(
        `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY tollgate_atomic_to_units(a, 0)) AS m FROM unnest($1::text[]) AS a`,
        [amounts],
      );
      expect(medianOfAmounts(amounts), JSON.stringify(amounts)).toBe(m);
    }
    expect(medianOfAmounts(null)).toBeNull();
    expect(medianOfAmounts([])).toBeNull();
  });

  it("reads the text[] literal the statement returns, the fast path and the general one alike", async () => {
    const values: (string | null)[] = ["9600", null, 'a "quoted", {braced} \\ value', "NULL", ""];
    const [{ lit }] = await t.query<{ lit: string }>(`SELECT $1::text[]::text AS lit`, [values]);
    expect(parseTextArray(lit)).toEqual(values);
    expect(parseAmounts("{9600,9700}")).toEqual(["9600", "9700"]);
    expect(parseAmounts("{}")).toEqual([]);
    expect(parseAmounts(null)).toBeNull();
  });
});
