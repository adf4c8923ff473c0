/**
 * Which process runs which ticks: on a server PostgreSQL the web process runs no sweep and the sweep
 * workers run them all; the single process (PGlite, the demo) runs both; `npm run sweeps` refuses
 * what it cannot do, naming it.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { sweepTicks, webProcessTicks, webTicks } from "./server-jobs";
import { sweepTicksNamed } from "./sweep-worker";

const names = (ticks: { name: string }[]) => ticks.map((t) => t.name).sort();
const SWEEPS = ["attest.daily-root", "attest.trust-grades", "canary.runs", "canary.schedule", "monitor.health-sweep", "rank.sweep", "receipts.sync", "trust.archive"];

describe("the ticks of each process", () => {
  it("the sweeps are health, rank, canary, trust grades, the daily root, the receipts' re-sync and the observations' archive, and none of them is a web tick", () => {
    expect(names(sweepTicks)).toEqual(SWEEPS);
    expect(names(webTicks).filter((n) => SWEEPS.includes(n))).toEqual([]);
    expect(names(webTicks)).toContain("analyses.reaper");
  });

  it("a web process on a server PostgreSQL runs no sweep; the single process runs them", () => {
    const server = { DATABASE_URL: "postgresql://db/app", TOLLGATE_INPROCESS_WORKER: false, TOLLGATE_SCHEDULER: true };
    expect(names(webProcessTicks(server))).toEqual(names(webTicks));
    expect(names(webProcessTicks({ ...server, DATABASE_URL: undefined }))).toEqual(names([...webTicks, ...sweepTicks]));
    expect(names(webProcessTicks({ ...server, TOLLGATE_INPROCESS_WORKER: true }))).toEqual(names([...webTicks, ...sweepTicks]));
    expect(webProcessTicks({ ...server, TOLLGATE_SCHEDULER: false })).toEqual([]);
  });

  it("a sweep worker runs the sweeps named, and refuses a name that is not one", () => {
    expect(names(sweepTicksNamed(["rank.sweep"]))).toEqual(["rank.sweep"]);
    expect(() => sweepTicksNamed(["rank.sweep", "analyses.reaper"])).toThrow(/unknown sweep analyses\.reaper/);
  });
});

describe("npm run sweeps", () => {
  const run = (args: string[], env: Record<string, string>) =>
    spawnSync(process.execPath, ["--import", "tsx", "scripts/sweeps.ts", ...args], { cwd: path.resolve(__dirname, "../.."), env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } as unknown as NodeJS.ProcessEnv, encoding: "utf8", timeout: 60_000 });

  it("needs a server PostgreSQL, and refuses an unknown sweep or flag by name (exit 2)", () => {
    const noDb = run([], {});
    expect(noDb.status).toBe(2);
    expect(noDb.stderr).toMatch(/DATABASE_URL must name a server PostgreSQL/);
    const unknown = run(["--only", "monitor.health-sweep,nope"], { DATABASE_URL: "postgresql://127.0.0.1:1/none" });
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/unknown sweep nope/);
    const flag = run(["--every", "1"], {});
    expect(flag.status).toBe(2);
    expect(flag.stderr).toMatch(/unknown argument: --every/);
  }, 120_000);
});
