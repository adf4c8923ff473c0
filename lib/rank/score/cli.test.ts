import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { isFileArgument, main, parseComponentsFile, toPointer, type CliIo, type RankInputsModule } from "./cli";
import { computeRank } from "./compute";
import { RANK_FIXTURES } from "@/test/rank-shapes";
import { openDatabase } from "@/lib/db";
import { migrate } from "@/lib/migrate";

const ROW1 = { gate: "settleable", liveness: 0.95, traction: 0.88, priceIntegrity: 0.96, featuredLevel: 0, verification: "verified" };

const NO_DATABASE: RankInputsModule = {
  rankForListing: async () => {
    throw new Error("file mode must not read the database");
  },
};

function fakeIo(files: Record<string, string>, rankInputs: RankInputsModule = NO_DATABASE) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: (t) => void out.push(t),
    stderr: (t) => void err.push(t),
    readFile: async (p) => {
      if (!(p in files)) throw Object.assign(new Error(`ENOENT: ${p}`), { code: "ENOENT" });
      return files[p];
    },
    loadRankInputs: async () => rankInputs,
  };
  return { io, out: () => out.join(""), err: () => err.join("") };
}

describe("parseComponentsFile", () => {
  it("accepts the documented shape", () => {
    expect(parseComponentsFile(JSON.stringify(ROW1))).toEqual({ ok: true, components: ROW1 });
  });

  it.each([
    ["not JSON", "{gate:", ""],
    ["not an object", "[1]", ""],
    ["missing field", JSON.stringify({ ...ROW1, traction: undefined }), "/traction"],
    ["wrong gate", JSON.stringify({ ...ROW1, gate: "maybe" }), "/gate"],
    ["number as string", JSON.stringify({ ...ROW1, liveness: "0.95" }), "/liveness"],
    ["number above 1", JSON.stringify({ ...ROW1, priceIntegrity: 1.2 }), "/priceIntegrity"],
    ["non-integer level", JSON.stringify({ ...ROW1, featuredLevel: 2.5 }), "/featuredLevel"],
    ["level above 5", JSON.stringify({ ...ROW1, featuredLevel: 6 }), "/featuredLevel"],
    ["wrong verification", JSON.stringify({ ...ROW1, verification: "verified-by-canary" }), "/verification"],
    ["unknown field", JSON.stringify({ ...ROW1, tier: 1 }), "/tier"],
    ["unknown field needing escapes", JSON.stringify({ ...ROW1, "a/b~c": 1 }), "/a~1b~0c"],
  ])("%s → error at %j", (_name, text, pointer) => {
    const r = parseComponentsFile(text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.map((e) => e.pointer)).toContain(pointer);
  });

  it("reports every problem, not only the first", () => {
    const r = parseComponentsFile(JSON.stringify({ gate: "x", extra: true }));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.map((e) => e.pointer).sort()).toEqual(["/extra", "/featuredLevel", "/gate", "/liveness", "/priceIntegrity", "/traction", "/verification"]);
  });

  it("toPointer escapes per RFC 6901", () => {
    expect(toPointer([])).toBe("");
    expect(toPointer(["a/b", "m~n"])).toBe("/a~1b/m~0n");
  });
});

describe("main: file mode", () => {
  it("prints quality, rank and every component with its facts", async () => {
    const f = fakeIo({ "c.json": JSON.stringify({ ...ROW1, featuredLevel: 3 }) });
    expect(await main(["c.json"], f.io)).toBe(0);
    const printed = JSON.parse(f.out());
    expect(printed).toMatchObject({ quality100: 92, rank100: 120 });
    expect(printed.quality).toBeCloseTo(0.9215, 12);
    expect(printed.rank).toBeCloseTo(1.19795, 12);
    expect(Object.keys(printed.components).sort()).toEqual(["featured", "gate", "liveness", "priceIntegrity", "traction", "verification"]);
    expect(printed.components.featured.facts).toEqual({ level: 3, gate: "settleable", forced: false });
  });

  it("exits 2 naming the field by JSON pointer", async () => {
    const f = fakeIo({ "c.json": JSON.stringify({ ...ROW1, liveness: 2 }) });
    expect(await main(["c.json"], f.io)).toBe(2);
    expect(f.err()).toMatch(/c\.json: \/liveness /);
    expect(f.out()).toBe("");
  });

  it("exits 2 on an unreadable file", async () => {
    const f = fakeIo({});
    expect(await main(["missing.json"], f.io)).toBe(2);
    expect(f.err()).toMatch(/missing\.json: cannot read \(ENOENT\)/);
  });

  it("exits 2 on bad usage", async () => {
    expect(await main([], fakeIo({}).io)).toBe(2);
    expect(await main(["a.json", "b.json"], fakeIo({}).io)).toBe(2);
  });

  it("tells a file from a listing id", () => {
    expect(isFileArgument("components.json")).toBe(true);
    expect(isFileArgument("./components")).toBe(true);
    expect(isFileArgument("clx8k2p0000")).toBe(false);
  });
});

describe("main: listing-id mode", () => {
  it("calls rankForListing(id) and prints its result", async () => {
    const seen: string[] = [];
    const f = fakeIo({}, {
      rankForListing: async (id) => {
        seen.push(id);
        return computeRank(RANK_FIXTURES.popularButThin.inputs);
      },
    });
    expect(await main(["lst_1"], f.io)).toBe(0);
    expect(seen).toEqual(["lst_1"]);
    expect(JSON.parse(f.out())).toMatchObject({ quality100: 95, rank100: 81 });
  });

  it("an unknown listing exits 2; a failing database exits 1", async () => {
    expect(await main(["nope"], fakeIo({}, { rankForListing: async () => null }).io)).toBe(2);
    const broken = fakeIo({}, { rankForListing: async () => Promise.reject(new Error("connection refused")) });
    expect(await main(["lst_1"], broken.io)).toBe(1);
    expect(broken.err()).toMatch(/connection refused/);
  });
});

describe("scripts/rank.ts as a process", () => {
  const root = path.resolve(__dirname, "../../..");
  const tsx = path.join(root, "node_modules/.bin/tsx");
  const run = async (arg: string, env: Record<string, string> = {}) => {
    try {
      const { stdout, stderr } = await promisify(execFile)(tsx, ["scripts/rank.ts", arg], { cwd: root, env: { ...process.env, DATABASE_URL: "", ...env } });
      return { code: 0, stdout, stderr };
    } catch (e) {
      const err = e as { code: number; stdout: string; stderr: string };
      return { code: err.code, stdout: err.stdout, stderr: err.stderr };
    }
  };
  const dir = mkdtempSync(path.join(tmpdir(), "rank-cli-"));
  const write = (name: string, body: string) => {
    const p = path.join(dir, name);
    writeFileSync(p, body);
    return p;
  };

  it("file mode prints the seed row and exits 0", async () => {
    const r = await run(write("row3.json", JSON.stringify({ gate: "settleable", liveness: 0.92, traction: 1, priceIntegrity: 0.9, featuredLevel: 0, verification: "unverified" })));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ quality100: 95, rank100: 81 });
  });

  it("a bad file exits 2 naming the field", async () => {
    const r = await run(write("bad.json", JSON.stringify({ ...ROW1, featuredLevel: "3" })));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/\/featuredLevel must be an integer 0–5/);
  });

  it("an unreadable file and non-JSON exit 2", async () => {
    expect((await run(path.join(dir, "absent.json"))).code).toBe(2);
    const nj = await run(write("nj.json", "not json"));
    expect(nj.code).toBe(2);
    expect(nj.stderr).toMatch(/\(document\) is not JSON/);
  });

  it("listing-id mode reads the database: an unknown id on a migrated embedded database exits 2", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "rank-cli-db-"));
    const handle = await openDatabase({ pgliteDir: path.join(dataDir, "pglite") });
    await migrate(handle);
    await handle.close();
    const r = await run("lst_absent", { TOLLGATE_DATA_DIR: dataDir });
    expect(r.stderr).toMatch(/no listing with id "lst_absent"/);
    expect(r.code).toBe(2);
    // Migrating a fresh on-disk PGlite (every committed migration) and starting a tsx process: on a
    // busy 2-core machine this took more than the suite's 30 s default.
  }, 120_000);
});
