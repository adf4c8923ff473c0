/** A process that started anvil and ends (exit, or SIGTERM) leaves no node running. */
import { spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(__dirname, "..");

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitGone(pid: number, ms = 5000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !isAlive(pid);
}

/** Whether the node went by itself; if not, kill it so a failing test leaves nothing running. */
async function reap(pid: number): Promise<boolean> {
  const gone = await waitGone(pid);
  if (!gone) process.kill(pid, "SIGKILL");
  return gone;
}

async function run(mode: "exit" | "signal"): Promise<{ anvilPid: number; code: number | null; signal: NodeJS.Signals | null }> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(root, "test/anvil-start-and-exit.ts"), mode], { cwd: root, stdio: ["ignore", "pipe", "inherit"] });
  const anvilPid = await new Promise<number>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /^(\d+)\n/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once("exit", () => reject(new Error(`fixture exited before printing a pid: ${out}`)));
  });
  expect(anvilPid).toBeGreaterThan(0);
  if (mode === "signal") {
    expect(isAlive(anvilPid)).toBe(true);
    child.kill("SIGTERM");
  }
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((r) => {
    if (child.exitCode !== null || child.signalCode !== null) r([child.exitCode, child.signalCode]);
    else child.once("exit", (c, s) => r([c, s]));
  });
  return { anvilPid, code, signal };
}

describe("anvil does not outlive the process that started it", () => {
  it("on process.exit", async () => {
    const { anvilPid, code } = await run("exit");
    expect(code).toBe(0);
    expect(await reap(anvilPid)).toBe(true);
  }, 60_000);

  it("on SIGTERM (the process still ends by the signal)", async () => {
    const { anvilPid, signal } = await run("signal");
    expect(signal).toBe("SIGTERM");
    expect(await reap(anvilPid)).toBe(true);
  }, 60_000);
});
