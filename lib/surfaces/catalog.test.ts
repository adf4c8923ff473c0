/** The catalog form's price range: a "from" above the "to" is said, not answered with an empty list. */
import { describe, expect, it } from "vitest";
import { priceRangeProblem } from "./catalog";

describe("priceRangeProblem", () => {
  it("names the From price when it is above the To price, and nothing otherwise", () => {
    expect(priceRangeProblem({ minPrice: "0.5", maxPrice: "0.05" })).toEqual({ field: "minPrice", message: 'is above the "To" price ($0.5 > $0.05), so no listing could match; swap them or lower it' });
    expect(priceRangeProblem({ minPrice: "0.05", maxPrice: "0.05" })).toBeNull();
    expect(priceRangeProblem({ minPrice: "0.01", maxPrice: "0.10" })).toBeNull();
    expect(priceRangeProblem({ minPrice: "0.5" })).toBeNull();
    expect(priceRangeProblem({ minPrice: "abc", maxPrice: "0.1" })).toBeNull();
  });
});
