/**
 * package.json's scripts point at files that exist (issue #20 item 6: db:migrate and db:seed named
 * missing files), and `npm run db:migrate` migrates a fresh database and is safe to repeat. Its
 * `engines.node` is the true minimum of what the installed dependencies accept (issue 19 item 10).
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const root = path.resolve(__dirname, "..");
const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { scripts: Record<string, string>; engines: { node: string } };
const run = promisify(execFile);

describe("package.json scripts", () => {
  const fileScripts = Object.entries(pkg.scripts).flatMap(([name, cmd]) => {
    const m = /\btsx\s+(\S+\.ts)\b/.exec(cmd);
    return m ? [[name, m[1]] as const] : [];
  });

  it("names files for its tsx scripts (db:migrate among them)", () => {
    expect(fileScripts.map(([n]) => n)).toContain("db:migrate");
  });

  for (const [name, file] of fileScripts) {
    it(`${name}: ${file} exists`, () => {
      expect(fs.existsSync(path.join(root, file)), `${name} runs ${file}, which does not exist`).toBe(true);
    });
  }

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-db-migrate-"));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("db:migrate applies every committed migration to a fresh PGlite folder, then finds it up to date", async () => {
    const envFor = { ...process.env, TOLLGATE_DATA_DIR: dir, DATABASE_URL: "", NODE_ENV: "development" as const };
    const tsx = path.join(root, "node_modules", ".bin", "tsx");
    const migrations = fs.readdirSync(path.join(root, "prisma", "migrations")).filter((d) => fs.existsSync(path.join(root, "prisma", "migrations", d, "migration.sql")));
    const first = await run(tsx, [pkg.scripts["db:migrate"].replace(/^tsx\s+/, "")], { cwd: root, env: envFor });
    expect(first.stdout).toContain(`applied ${migrations.length} migration(s)`);
    for (const m of migrations) expect(first.stdout).toContain(m);
    const again = await run(tsx, [pkg.scripts["db:migrate"].replace(/^tsx\s+/, "")], { cwd: root, env: envFor });
    expect(again.stdout).toContain("is up to date");
  }, 240_000);
});

/** [major, minor, patch] of "20", "20.19" or "20.19.0" (missing parts 0), with whether parts were missing. */
function parseVersion(v: string): { at: [number, number, number]; parts: number } {
  const m = /^v?(\d+)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?$/.exec(v);
  if (!m) throw new Error(`not a version: ${JSON.stringify(v)}`);
  const nums = [m[1], m[2], m[3]].filter((x) => x !== undefined && x !== "x" && x !== "*").map(Number);
  return { at: [nums[0] ?? 0, nums[1] ?? 0, nums[2] ?? 0], parts: nums.length };
}
const cmp = (a: number[], b: number[]) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/**
 * Whether a Node version satisfies an engines range, for the forms package.json files use: "||"
 * alternatives of space-separated comparators (>=, >, <=, <, ^, ~, a bare or partial version, *).
 * Anything else throws, naming the range, so the test below says which package it cannot read.
 */
function satisfies(version: string, range: string): boolean {
  const v = parseVersion(version).at;
  return range.split("||").some((alt) => {
    const comparators = alt.trim().replace(/(>=|<=|>|<|\^|~)\s+/g, "$1").split(/\s+/).filter(Boolean);
    return comparators.every((c) => {
      if (c === "*" || c === "x") return true;
      const m = /^(>=|<=|>|<|\^|~|=)?(.+)$/.exec(c)!;
      const { at, parts } = parseVersion(m[2]);
      switch (m[1]) {
        case ">=": return cmp(v, at) >= 0;
        case ">": return cmp(v, at) > 0;
        case "<=": return cmp(v, at) <= 0;
        case "<": return cmp(v, at) < 0;
        case "^": return cmp(v, at) >= 0 && (at[0] > 0 ? v[0] === at[0] : v[0] === 0 && v[1] === at[1]);
        case "~": return cmp(v, at) >= 0 && v[0] === at[0] && (parts < 2 || v[1] === at[1]);
        default: return v[0] === at[0] && (parts < 2 || v[1] === at[1]) && (parts < 3 || v[2] === at[2]);
      }
    });
  });
}

/** Every installed package's engines.node, nested copies included. */
function installedEngines(): Array<{ name: string; version: string; node: string }> {
  const out: Array<{ name: string; version: string; node: string }> = [];
  const walk = (dir: string, depth: number) => {
    if (!fs.existsSync(dir)) return;
    for (const entry of fs.readdirSync(dir)) {
      if (entry.startsWith(".")) continue;
      const at = path.join(dir, entry);
      if (entry.startsWith("@")) {
        walk(at, depth);
        continue;
      }
      const manifest = path.join(at, "package.json");
      if (fs.existsSync(manifest)) {
        const j = JSON.parse(fs.readFileSync(manifest, "utf8")) as { name?: string; version?: string; engines?: { node?: unknown } };
        if (typeof j.engines?.node === "string") out.push({ name: j.name ?? entry, version: j.version ?? "?", node: j.engines.node });
      }
      if (depth < 4) walk(path.join(at, "node_modules"), depth + 1);
    }
  };
  walk(path.join(root, "node_modules"), 0);
  return out;
}

/**
 * Dependencies allowed to ask for more than engines.node says, each with why. pg-boss is the peer
 * bench:queue measures the queue against (a devDependency nothing else imports): its 12.x releases
 * declare Node >=22.12.0, run on Node 20 (docs/BENCHMARKS.md), and npm only warns (EBADENGINE).
 */
const ABOVE_ENGINES: Record<string, string> = { "pg-boss": "bench:queue's comparison peer only" };

describe("engines.node", () => {
  const engines = installedEngines();
  // The lowest version of each alternative of our range: "^20.19.0 || ^22.13.0 || >=24.0.0" → 20.19.0, 22.13.0, 24.0.0.
  const floors = pkg.engines.node.split("||").map((alt) => alt.trim().replace(/^(\^|>=)/, ""));

  it("reads every installed dependency's range", () => {
    expect(engines.length).toBeGreaterThan(20);
    for (const e of engines) expect(() => satisfies("20.19.0", e.node), `${e.name}@${e.version}: ${e.node}`).not.toThrow();
    expect(satisfies("20.19.0", "^20.19.0 || >=22.12.0")).toBe(true);
    expect(satisfies("23.1.0", "^20.0.0 || ^22.0.0 || >=24.0.0")).toBe(false);
    expect(satisfies("20.20.2", ">= 20")).toBe(true);
    expect(satisfies("16.0.0", "^14.21.3 || >=16")).toBe(true);
  });

  it("is accepted by every installed dependency at each of its floors (pg-boss excepted, with why)", () => {
    expect(floors).toEqual(["20.19.0", "22.13.0", "24.0.0"]);
    const refused = engines.filter((e) => !(e.name in ABOVE_ENGINES)).flatMap((e) => floors.filter((f) => !satisfies(f, e.node)).map((f) => `${e.name}@${e.version} (${e.node}) refuses Node ${f}`));
    expect(refused).toEqual([]);
  });

  it("is the true minimum: just below each floor, some dependency refuses", () => {
    for (const below of ["20.18.9", "22.12.9", "23.99.0"]) {
      const refusers = engines.filter((e) => !(e.name in ABOVE_ENGINES) && !satisfies(below, e.node));
      expect(refusers.length, `Node ${below} is refused by nobody, so engines.node is too high`).toBeGreaterThan(0);
      expect(satisfies(below, pkg.engines.node), `engines.node admits Node ${below}`).toBe(false);
    }
  });
});

/**
 * Every dependency the lockfile says runs an install script is approved by name in `allowScripts`
 * (README "Run it"): npm 11.16+ lists the unapproved ones after every install, and a release
 * that enforces the field would skip their scripts (anvil's binary, Prisma's engine and client).
 * An approval of a package that no longer has a script is stale and fails too.
 */
describe("allowScripts", () => {
  const lock = JSON.parse(fs.readFileSync(path.join(root, "package-lock.json"), "utf8")) as { packages: Record<string, { hasInstallScript?: boolean }> };
  const withScripts = [...new Set(Object.entries(lock.packages).flatMap(([at, p]) => (at !== "" && p.hasInstallScript ? [at.slice(at.lastIndexOf("node_modules/") + "node_modules/".length)] : [])))].sort();
  const approved = (JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { allowScripts?: Record<string, boolean> }).allowScripts ?? {};

  it("approves exactly the locked packages with install scripts", () => {
    expect(withScripts).toContain("@foundry-rs/anvil");
    expect(Object.keys(approved).sort()).toEqual(withScripts);
    for (const [name, allowed] of Object.entries(approved)) expect(allowed, `${name} is listed but not allowed`).toBe(true);
  });
});
