/** /robots.txt keeps the private paths out and names the sitemap; /favicon.ico is a real icon file. */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import robots from "./robots";

describe("robots and favicon", () => {
  it("disallows the seller's, moderators' and API paths and names the sitemap", () => {
    const r = robots();
    const rule = Array.isArray(r.rules) ? r.rules[0] : r.rules;
    expect(rule.disallow).toEqual(expect.arrayContaining(["/dashboard", "/admin", "/api/"]));
    expect(String(r.sitemap)).toMatch(/^https?:\/\/.+\/sitemap\.xml$/);
  });

  it("ships public/favicon.ico as an ICO holding a PNG", () => {
    const ico = fs.readFileSync(path.join(process.cwd(), "public", "favicon.ico"));
    expect([...ico.subarray(0, 4)]).toEqual([0, 0, 1, 0]);
    expect(ico.subarray(22, 26).toString("latin1")).toBe("\x89PNG");
  });
});
