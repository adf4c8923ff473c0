import { describe, expect, it } from "vitest";
import { simulateHistory } from "@/test/trust-histories";
import { loadRubric } from "../rubric";
import { runTrustCli } from "./cli";
import { validateSubjectInput } from "./validate";

const rubric = loadRubric();
const now = "2026-12-01T12:00:00.000Z";
const good = { ...simulateHistory(rubric, { now, days: 7, freeEveryHours: 6, paidEveryDays: 2, endpointId: "ep-1" }), now, seed: 5 };

function run(argv: string[], files: Record<string, string>) {
  let out = "";
  let err = "";
  const code = runTrustCli(argv, {
    readFile: (p) => {
      if (!(p in files)) throw new Error(`ENOENT: ${p}`);
      return files[p];
    },
    stdout: (s) => void (out += s),
    stderr: (s) => void (err += s),
    now: () => new Date(now),
  });
  return { code, out, err };
}

describe("npm run trust", () => {
  it("prints score, grade, band, confidence, verdict, outlook, watch and every check with its facts", () => {
    const r = run(["obs.json"], { "obs.json": JSON.stringify(good) });
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^x402-endpoint\/1\.0\.0-draft\.1\/reading-3 {2}endpoint ep-1 {2}at 2026-12-01T12:00:00\.000Z {2}seed 5$/m);
    expect(r.out).toMatch(/^score [\d.]+ {2}grade [A-F] {2}band [\d.]+–[\d.]+ \(width [\d.]+\) {2}confidence (low|medium|high)$/m);
    for (const line of [/^verdict /m, /^outlook /m, /^watch /m, /^gate overcharge \(H5, fail_weight_gte 0\.25\): quiet/m]) expect(r.out).toMatch(line);
    for (const c of rubric.checks) expect(r.out).toMatch(new RegExp(`^${c.id} +${c.dimension} +${c.kind} `, "m"));
    expect(r.out).toMatch(/^R1 .* 29 pass \/ 0 fail \/ 0 na \/ 0 unmeasured; half-life 14 d, on revision half;/m);
  });

  it("--json prints the whole result; the same seed gives the same output", () => {
    const a = run(["obs.json", "--json"], { "obs.json": JSON.stringify(good) });
    const b = run(["--json", "obs.json"], { "obs.json": JSON.stringify(good) });
    expect(a.out).toBe(b.out);
    const parsed = JSON.parse(a.out);
    expect(parsed).toMatchObject({ endpointId: "ep-1", seed: 5, now });
    expect(parsed.checks).toHaveLength(27);
  });

  it.each<[string, (s: typeof good) => void, string]>([
    ["an unknown outcome", (s) => { (s.observations[2] as { outcome: string }).outcome = "maybe"; }, "/observations/2/outcome: must be one of"],
    ["a missing field", (s) => { delete (s.observations[4] as Partial<(typeof s.observations)[0]>).vantage; }, "/observations/4/vantage: is required"],
    ["an unknown check", (s) => { s.observations[1].check = "Z9"; }, "/observations/1/check: names no check"],
    ["the wrong kind for a check", (s) => { s.observations[0].kind = "paid"; }, `/observations/0/kind: must be "free" for check R1`],
    ["a curve pass without its value", (s) => { const i = s.observations.findIndex((o) => o.check === "R3"); s.observations[i].value = null; }, "/value: check R3 is a curve"],
    ["a revision not listed", (s) => { s.observations[3].revision = 4; }, "/observations/3/revision: revision 4 is not listed"],
    ["a bad instant", (s) => { s.observations[3].observedAt = "yesterday"; }, "/observations/3/observedAt: has the wrong shape"],
    ["a bad seed", (s) => { (s as { seed: unknown }).seed = "x"; }, "/seed: must be of type integer"],
  ])("exits 2 on %s, naming the JSON pointer", (_what, breakIt, message) => {
    const s = structuredClone(good);
    breakIt(s);
    const r = run(["obs.json"], { "obs.json": JSON.stringify(s) });
    expect(r.code).toBe(2);
    expect(r.out).toBe("");
    expect(r.err).toContain(message);
  });

  it("--reading n scores with an older reading of the engine (to reproduce a score made under it); an unknown one exits 2", () => {
    const last = { ...structuredClone(good), observations: [...good.observations, { ...good.observations.find((o) => o.check === "H5")!, outcome: "na", observedAt: now }] };
    const files = { "obs.json": JSON.stringify(last) };
    const r1 = JSON.parse(run(["obs.json", "--json", "--reading", "1"], files).out);
    const r2 = JSON.parse(run(["obs.json", "--json"], files).out);
    expect(r1.reading).toBe("x402-endpoint/1.0.0-draft.1/reading-1");
    expect(r2.reading).toBe("x402-endpoint/1.0.0-draft.1/reading-3");
    expect(r1.checks.find((c: { id: string }) => c.id === "H5").status).toBe("na"); // a per-call na hid H5's history
    expect(r2.checks.find((c: { id: string }) => c.id === "H5").status).toBe("measured");
    expect(run(["obs.json", "--reading", "1"], files).out).toMatch(/^x402-endpoint\/1\.0\.0-draft\.1\/reading-1 {2}endpoint/);
    for (const bad of [["--reading"], ["--reading", "9"], ["--reading", "two"]]) {
      const r = run(["obs.json", ...bad], files);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(/--reading needs a reading of x402-endpoint\/1\.0\.0-draft\.1: one of 1, 2, 3/);
    }
  });

  it("exits 2 on no file, an unreadable file, not JSON, or an unknown flag", () => {
    expect(run([], {}).code).toBe(2);
    expect(run(["nope.json"], {}).err).toMatch(/cannot read nope\.json/);
    expect(run(["x.json"], { "x.json": "{" }).err).toMatch(/x\.json is not JSON/);
    expect(run(["x.json", "--fast"], { "x.json": "{}" }).err).toMatch(/unknown option --fast/);
    expect(run(["--help"], {}).code).toBe(0);
  });

  it("validateSubjectInput accepts the simulated subject as is", () => {
    expect(validateSubjectInput(rubric, good).ok).toBe(true);
  });
});
