import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseArgs, runScoreCli } from "./cli";

const ROOT = path.join(__dirname, "../../..");
const FX = path.join(__dirname, "fixtures");
const NOW = "2026-12-02T12:00:00Z";
const listing = path.join(FX, "well-built-brand-new.listing.json");
const evidence = path.join(FX, "well-built-brand-new.evidence.json");

function run(argv: string[], files: Record<string, string> = {}) {
  let out = "";
  let err = "";
  const code = runScoreCli(argv, {
    readFile: (p) => (p in files ? files[p] : readFileSync(p, "utf8")),
    stdout: (s) => (out += s),
    stderr: (s) => (err += s),
    now: () => new Date(NOW),
  });
  return { code, out, err };
}

describe("score CLI", () => {
  it("prints the JSON result and exits 0", () => {
    const r = run([listing, "--evidence", evidence, "--now", NOW]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ rubricVersion: "readiness/1.2.0", total: 87, band: { label: "Ready" }, provisional: false });
  });
  it("is provisional without evidence, or when asked", () => {
    expect(JSON.parse(run([listing]).out)).toMatchObject({ provisional: true, caps: [] });
    expect(JSON.parse(run([listing, "--evidence", evidence, "--provisional"]).out).provisional).toBe(true);
  });
  it("prints a text report a person reads", () => {
    const r = run([listing, "--evidence", evidence, "--now", NOW, "--format=text"]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Readiness 87\/100 · Ready · readiness\/1\.2\.0/);
    expect(r.out).toMatch(/Pricing\s+[█░]{20}\s+18\/20/);
    expect(r.out).toMatch(/part P4/);
    expect(r.out).toMatch(/Improvements \(most valuable first\)\n\s+1\. D2 \+4/);
  });
  it("shows the cap in the text report", () => {
    const r = run([path.join(FX, "trafficked-but-unpayable.listing.json"), "--evidence", path.join(FX, "trafficked-but-unpayable.evidence.json"), "--now", NOW, "--format", "text"]);
    expect(r.out).toMatch(/Readiness 39\/100 · Getting started/);
    expect(r.out).toMatch(/Capped at 39 by knownUnpayable/);
    expect(r.out).toMatch(/1\. \[blocker\] H3 \+5/);
  });
  it("--min-score: exits 1 below the threshold, 0 at it", () => {
    const below = run([listing, "--evidence", evidence, "--now", NOW, "--min-score", "88"]);
    expect(below.code).toBe(1);
    expect(below.err).toMatch(/readiness 87 is below --min-score 88/);
    expect(JSON.parse(below.out).total).toBe(87);
    expect(run([listing, "--evidence", evidence, "--now", NOW, "--min-score", "87"]).code).toBe(0);
  });
  it("exits 2 on an invalid listing and prints each pointer and reason", () => {
    const bad = JSON.stringify({ title: "Weather", baseUrl: "https://a.dev", endpoints: [{ method: "FETCH", path: "x" }], rating: 5 });
    const r = run(["bad.json"], { "bad.json": bad });
    expect(r.code).toBe(2);
    expect(r.out).toBe("");
    expect(r.err).toMatch(/\/endpoints\/0\/method: must be one of/);
    expect(r.err).toMatch(/\/endpoints\/0\/path: has the wrong shape/);
    expect(r.err).toMatch(/\/rating: is not a field/);
  });
  it("exits 2 on invalid evidence, unreadable files and non-JSON", () => {
    expect(run([listing, "--evidence", "ev.json"], { "ev.json": JSON.stringify({ probe: { endpoints: [] }, settle: {} }) })).toMatchObject({ code: 2, err: expect.stringMatching(/\/settle\/failedAttemptsSinceLastSettle: must be a number[\s\S]*\/liveness: must be an object/) });
    expect(run(["/nonexistent/listing.json"])).toMatchObject({ code: 2, err: expect.stringMatching(/cannot read listing .*ENOENT/) });
    expect(run(["x.json"], { "x.json": "{" })).toMatchObject({ code: 2, err: expect.stringMatching(/not JSON/) });
  });
  it.each([
    [[], /missing <listing.json>/],
    [["a.json", "b.json"], /one listing at a time/],
    [["a.json", "--format", "xml"], /--format must be json or text/],
    [["a.json", "--min-score", "high"], /--min-score must be a number/],
    [["a.json", "--min-score", "101"], /--min-score must be a number/],
    [["a.json", "--evidence"], /--evidence needs a value/],
    [["a.json", "--evidence", "--provisional"], /--evidence needs a value/],
    [["a.json", "--now", "yesterday"], /--now must be an ISO/],
    [["a.json", "--rubric", "9.9.9"], /unknown rubric version/],
    [["a.json", "--verbose"], /unknown option --verbose/],
    [["a.json", "--provisional=yes"], /takes no value/],
  ])("bad flags %j → exit 2", (argv, message) => {
    const r = run(argv as string[]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(r.err).toMatch(/Usage: npm run score/);
  });
  it("--help prints usage and exits 0", () => {
    expect(run(["--help"])).toMatchObject({ code: 0, out: expect.stringMatching(/^Usage/) });
    expect(parseArgs(["-h"]).ok).toBe("help");
  });
  it("runs as a process through npm's script (scripts/score.ts)", () => {
    const tsx = path.join(ROOT, "node_modules/.bin/tsx");
    const ok = spawnSync(tsx, ["scripts/score.ts", listing, "--evidence", evidence, "--now", NOW, "--min-score", "80"], { cwd: ROOT, encoding: "utf8" });
    expect(ok.status).toBe(0);
    expect(JSON.parse(ok.stdout).total).toBe(87);
    const low = spawnSync(tsx, ["scripts/score.ts", listing, "--min-score", "90"], { cwd: ROOT, encoding: "utf8" });
    expect(low.status).toBe(1);
    const bad = spawnSync(tsx, ["scripts/score.ts", "--format"], { cwd: ROOT, encoding: "utf8" });
    expect(bad.status).toBe(2);
  });
});
