/** Which trust history a saved endpoint continues (lib/listings/trust-path.ts). */
import { describe, expect, it } from "vitest";
import { carriedTrustPaths } from "./trust-path";

const ep = (path: string, trustPath = path, method = "POST") => ({ method, path, trustPath });
const before = (baseUrl: string, ...endpoints: ReturnType<typeof ep>[]) => ({ baseUrl, endpoints });
const now = (...paths: string[]) => paths.map((path) => ({ method: "POST", path }));

describe("carriedTrustPaths", () => {
  it("a new listing's endpoints are filed under their own paths", () => {
    expect(carriedTrustPaths(null, "https://a.example", now("/x", "/y"))).toEqual(["/x", "/y"]);
  });

  it("the same URL written with a trailing slash, or with the base URL's prefix moved into the path, keeps its key", () => {
    expect(carriedTrustPaths(before("https://a.example", ep("/v1/x")), "https://a.example", now("/v1/x/"))).toEqual(["/v1/x"]);
    expect(carriedTrustPaths(before("https://a.example/v1", ep("/x")), "https://a.example", now("/v1/x"))).toEqual(["/x"]);
    expect(carriedTrustPaths(before("https://a.example", ep("/v1/x")), "HTTPS://A.EXAMPLE:443/v1/", now("x"))).toEqual(["/v1/x"]);
    // A key carried before is carried again.
    expect(carriedTrustPaths(before("https://a.example/v1", ep("/x/", "/x")), "https://a.example", now("/v1/x"))).toEqual(["/x"]);
  });

  it("the same listed path on a moved server keeps its key (the store starts a `url` revision)", () => {
    expect(carriedTrustPaths(before("https://a.example", ep("/x")), "https://b.example", now("/x"))).toEqual(["/x"]);
  });

  it("the URL decides before the listed path: the prefix moved out, the history stays with the URL it was measured at", () => {
    const old = before("https://a.example/v1", ep("/x"));
    expect(carriedTrustPaths(old, "https://a.example", now("/x", "/v1/x"))).toEqual(["/x#2", "/x"]);
  });

  it("two spellings of one URL: the exact one keeps the key, the other starts its own", () => {
    expect(carriedTrustPaths(before("https://a.example", ep("/x/")), "https://a.example", now("/x", "/x/"))).toEqual(["/x", "/x/"]);
  });

  it("a method is its own endpoint", () => {
    expect(carriedTrustPaths(before("https://a.example", ep("/x", "/x", "GET")), "https://a.example", now("/x/"))).toEqual(["/x/"]);
  });

  it("every key is given once, so no two endpoints share a history", () => {
    const old = before("https://a.example/v1", ep("/x"), ep("/y"));
    const keys = carriedTrustPaths(old, "https://a.example", now("/v1/x", "/x", "/x/", "/v1/y", "/y"));
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.slice(0, 1)).toEqual(["/x"]);
    expect(keys[3]).toBe("/y");
  });

  it("an endpoint removed by one save and listed again at its URL by a later one continues the listing's key for that URL", () => {
    const history = [{ method: "POST", trustPath: "/v1/x", url: "https://a.example/v1/x" }, { method: "POST", trustPath: "/old", url: null }];
    expect(carriedTrustPaths(before("https://a.example", ep("/y")), "https://a.example", now("/y", "/v1/x/"), history)).toEqual(["/y", "/v1/x"]);
    // A key still held by an endpoint is not given twice.
    expect(carriedTrustPaths(before("https://a.example", ep("/v1/x")), "https://a.example", now("/v1/x", "/v1/x/"), history)).toEqual(["/v1/x", "/v1/x/"]);
  });

  it("a key follows every URL it had: the server moved away (carried by the listed path) and back with another spelling", () => {
    const history = [{ method: "POST", trustPath: "/v1/x", url: "https://a.example/v1/x" }];
    expect(carriedTrustPaths(before("https://b.example", ep("/v1/x")), "https://a.example", now("/v1/x/"), history)).toEqual(["/v1/x"]);
  });
});
