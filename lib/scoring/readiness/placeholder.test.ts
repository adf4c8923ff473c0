import { describe, expect, it } from "vitest";
import { compileRubric, titlePlaceholderReason } from "./compile";
import { CURRENT_RUBRIC } from "./rubric";

const c = compileRubric(CURRENT_RUBRIC);
const base = "https://api.weatherly.dev";
const why = (title: string, baseUrl = base) => titlePlaceholderReason(title, baseUrl, c);

describe("M1 placeholder titles", () => {
  it.each([
    "Untitled", "untitled api", "My API", "my api", "MY SERVICE", "test", "Test", "TEST API", "Test API 2", "test-api", "testing",
    "demo", "Demo API", "example", "Example API", "sample", "Sample API", "Lorem ipsum", "lorem ipsum dolor sit amet",
    "TODO", "TODO: rename", "Weather API (TODO)", "TBD", "FIXME weather", "New listing", "new-listing", "API", "api", "APIs",
    "Service", "placeholder", "Placeholder weather", "foo", "Foo Bar", "asdf", "hello world", "Hello, World!", "changeme", "N/A",
    "undefined", "null", "My first API", "Untitled service 3",
  ])("%j is a placeholder", (t) => expect(why(t)).toMatch(/placeholder/));

  it.each([
    ["api.weatherly.dev", /host/],
    ["weatherly.dev", /host/],
    ["API.WEATHERLY.DEV", /host/],
    ["https://api.weatherly.dev", /base URL/],
  ])("%j is the bare host or base URL", (t, re) => expect(why(t)).toMatch(re));

  it.each([
    ["", /empty/],
    ["   ", /empty/],
    ["!!!", /no letters/],
    ["— · —", /no letters/],
    ["...???", /no letters/],
    ["ab", /fewer than 4/],
    ["a.b.c", /fewer than 4/],
    ["X-1", /fewer than 4/],
  ])("%j is too short or punctuation only", (t, re) => expect(why(t)).toMatch(re));

  it.each([
    "Weatherly hourly forecasts",
    "Weatherly",
    "Agent verdict: did the work meet your criteria (signed, per criterion)",
    "validity-check",
    "Testnet faucet status", // "test" only as a whole title or phrase, never as a prefix
    "Contest results API",
    "Sample-rate converter for audio", // "sample" alone is a placeholder, a sentence with it is not
    "天气预报 API",
    "Geo IP",
    "dev.to article search", // a host-like title that is not this listing's host
  ])("%j is specific", (t) => expect(why(t)).toBeNull());

  it("only compares against this listing's own host", () => {
    expect(why("weatherly.dev", "https://api.other.dev")).toBeNull();
    expect(why("other.dev", "https://www.other.dev/v1")).toMatch(/host/);
  });

  it("reads the list from the rubric, not from code", () => {
    const patched = { ...CURRENT_RUBRIC, placeholders: { ...CURRENT_RUBRIC.placeholders, titles: [...CURRENT_RUBRIC.placeholders.titles, "weatherly"] } };
    expect(titlePlaceholderReason("Weatherly", base, compileRubric(patched))).toMatch(/placeholder/);
  });
});
