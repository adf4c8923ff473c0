/** The editor's estimate says why it starts below the published score (it has no probe), and only then. */
import { describe, expect, it } from "vitest";
import { belowPublishedWords } from "./estimate";

describe("belowPublishedWords", () => {
  it("explains an estimate below the published score, and is silent otherwise", () => {
    expect(belowPublishedWords(71, 87)).toMatch(/^Below your published 87 because this estimate has no live probe/);
    expect(belowPublishedWords(87, 87)).toBeNull();
    expect(belowPublishedWords(90, 87)).toBeNull();
    expect(belowPublishedWords(40, null)).toBeNull();
  });
});
