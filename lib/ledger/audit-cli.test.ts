/**
 * `npm run ledger:audit` as a process (scripts/ledger-audit.ts): on a migrated embedded database it
 * prints its count and exits 0 with nothing to prove; a bad flag exits 2 naming it. What it proves on
 * a real chain is tested in lib/ledger/confirm-payment.test.ts and lib/router/production-shape.test.ts.
 */
import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { openDatabase } from "@/lib/db";
import { migrate } from "@/lib/migrate";

const root = path.resolve(__dirname, "../..");
const tsx = path.join(root, "node_modules/.bin/tsx");
async function run(args: string[], env: Record<string, string>) {
  try {
    const { stdout, stderr } = await promisify(execFile)(tsx, ["scripts/ledger-audit.ts", ...args], { cwd: root, env: { ...process.env, DATABASE_URL: "", ...env } });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

describe("scripts/ledger-audit.ts as a process", () => {
  it("an empty ledger is proven (exit 0); --format other than text or json exits 2", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "ledger-audit-"));
    const handle = await openDatabase({ pgliteDir: path.join(dataDir, "pglite") });
    await migrate(handle);
    await handle.close();
    const ok = await run([], { TOLLGATE_DATA_DIR: dataDir });
    expect(ok.stdout).toContain("0 settled rows checked: 0 bound on chain, 0 not.");
    expect(ok.code).toBe(0);
    const json = await run(["--format", "json"], { TOLLGATE_DATA_DIR: dataDir });
    expect(JSON.parse(json.stdout)).toEqual({ checked: 0, bound: 0, findings: [] });
    const bad = await run(["--format", "xml"], { TOLLGATE_DATA_DIR: dataDir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--format must be text or json/);
  }, 180_000);
});
