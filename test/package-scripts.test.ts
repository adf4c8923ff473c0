/**
 * package.json's scripts point at files that exist (issue #20 item 6: db:migrate and db:seed named
 * missing files), and `npm run db:migrate` migrates a fresh database and is safe to repeat.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const root = path.resolve(__dirname, "..");
const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { scripts: Record<string, string> };
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
