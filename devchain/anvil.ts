/**
 * A real local EVM node: anvil from the npm package @foundry-rs/anvil (its platform binary ships
 * inside the package `@foundry-rs/anvil-<platform>-<arch>`; nothing is downloaded at run time).
 * Started on a free loopback port with chain id 31337, stopped with the process that started it.
 *
 * anvil's default development accounts (see LOCAL_DEV_KEYS in local-chain.ts) are derived from a
 * published mnemonic: their keys are public and are for this local chain only.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import net from "node:net";
import path from "node:path";
import { LOCAL_CHAIN_ID } from "@/lib/chain/local-network";

export { LOCAL_CHAIN_ID };

export interface AnvilNode {
  rpcUrl: string;
  port: number;
  /** The child process id (for diagnostics). */
  pid: number;
  /** Stop the node (SIGTERM, then SIGKILL after a grace period). Safe to call twice. */
  stop(): Promise<void>;
}

export interface StartAnvilOptions {
  /** A fixed port (tests of restart use it); default: a free one. A fixed port is not retried elsewhere. */
  port?: number;
  /** How long to wait for the RPC to answer. Default 20 s. */
  readyTimeoutMs?: number;
  /** The chain id (default LOCAL_CHAIN_ID, 31337); another one stands the node in for a public network. */
  chainId?: number;
  /** Extra anvil arguments (e.g. ["--block-time", "1"]). */
  args?: string[];
  /** Attempts on fresh ports when a chosen port turns out to be taken. Default 5. */
  attempts?: number;
  /** How a port is chosen for each attempt (default freePort); tests inject a taken one. */
  pickPort?: () => Promise<number>;
}

export class AnvilError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AnvilError";
  }
}

/**
 * The anvil executable: the platform package's binary when present (so stopping the child stops
 * the node itself), else the package's node wrapper (`bin.mjs`), which forwards SIGTERM/SIGINT.
 */
export function anvilCommand(): { command: string; prefixArgs: string[] } {
  const require = createRequire(path.join(process.cwd(), "package.json"));
  const platformPackage = `@foundry-rs/anvil-${process.platform}-${process.arch === "x64" ? "amd64" : process.arch}`;
  const binary = process.platform === "win32" ? "anvil.exe" : "anvil";
  try {
    const candidate = require.resolve(`${platformPackage}/bin/${binary}`);
    if (existsSync(candidate)) return { command: candidate, prefixArgs: [] };
  } catch {
    // fall through to the wrapper
  }
  try {
    const wrapper = path.join(path.dirname(require.resolve("@foundry-rs/anvil/package.json")), "bin.mjs");
    return { command: process.execPath, prefixArgs: [wrapper] };
  } catch {
    throw new AnvilError(`anvil is not installed: neither ${platformPackage} nor @foundry-rs/anvil resolves from ${process.cwd()} (run npm install)`);
  }
}

/** A port the OS reports free on 127.0.0.1 right now (another process may take it before anvil binds: retried). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new AnvilError("could not obtain a free port"))));
    });
  });
}

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

/** A process exit (normal, or by SIGINT/SIGTERM) must not leave a node running. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const child of running) {
      try {
        child.kill("SIGKILL");
      } catch {
        // already gone
      }
    }
  });
  // A signal's default action ends the process without "exit": stop the nodes first. When nobody
  // else handles the signal, re-raise it so the process still ends the way it would have.
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      for (const child of running) child.kill("SIGKILL");
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    });
  }
}

/** True when the JSON-RPC at `rpcUrl` answers eth_chainId. */
export async function rpcAnswers(rpcUrl: string, timeoutMs = 1000): Promise<boolean> {
  try {
    const res = await fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!res.ok) return false;
    const body = (await res.json()) as { result?: string };
    return typeof body.result === "string";
  } catch {
    return false;
  }
}

class PortTakenError extends AnvilError {}

/** anvil's line once its JSON-RPC socket is bound (printed after the banner; never when the bind fails). */
const listeningLine = (port: number) => new RegExp(`Listening on 127\\.0\\.0\\.1:${port}\\b`);

async function startOnce(port: number, options: StartAnvilOptions): Promise<AnvilNode> {
  const { command, prefixArgs } = anvilCommand();
  // Not --silent: the "Listening on" line is how we know that this child, and not whatever else may
  // hold the port, bound it. The banner (public development keys) is read here and never logged.
  const args = [...prefixArgs, "--host", "127.0.0.1", "--port", String(port), "--chain-id", String(options.chainId ?? LOCAL_CHAIN_ID), ...(options.args ?? [])];
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => {
    if (stderr.length < 8192) stderr += chunk;
  });
  const listening = new Promise<"listening">((resolve) => {
    const line = listeningLine(port);
    let tail = "";
    child.stdout?.setEncoding("utf8");
    child.stdout?.on("data", (chunk: string) => {
      tail = (tail + chunk).slice(-4096);
      if (line.test(tail)) resolve("listening");
    });
  });
  const state: { exited: { code: number | null; signal: NodeJS.Signals | null } | null } = { exited: null };
  const exitPromise = new Promise<"exited">((resolve) => {
    child.once("exit", (code, signal) => {
      state.exited = { code, signal };
      running.delete(child);
      resolve("exited");
    });
  });
  const spawnError = new Promise<Error>((resolve) => child.once("error", resolve));
  running.add(child);
  installExitHook();

  const rpcUrl = `http://127.0.0.1:${port}`;
  const timeoutMs = options.readyTimeoutMs ?? 20_000;
  const deadline = Date.now() + timeoutMs;
  const stop = async (): Promise<void> => {
    if (state.exited) return;
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 3000);
    await exitPromise;
    clearTimeout(timer);
  };
  const timedOut = async (): Promise<never> => {
    await stop();
    throw new AnvilError(`anvil did not answer on ${rpcUrl} within ${timeoutMs} ms: ${stderr.trim().slice(0, 500)}`);
  };

  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    listening,
    exitPromise,
    spawnError,
    new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), timeoutMs))),
  ]).finally(() => clearTimeout(timer));
  if (outcome instanceof Error) {
    running.delete(child);
    throw new AnvilError(`could not start anvil (${command}): ${outcome.message}`);
  }
  if (outcome === "exited") {
    // stderr may still be arriving when "exit" fires: wait for the stream to end before judging it.
    if (child.stderr && !child.stderr.readableEnded) await new Promise((r) => child.stderr!.once("end", r).once("close", r));
    const taken = /address already in use|AddrInUse|os error 98/i.test(stderr);
    const detail = `anvil exited (${JSON.stringify(state.exited)}) before answering on port ${port}: ${stderr.trim().slice(0, 500)}`;
    throw taken ? new PortTakenError(detail) : new AnvilError(detail);
  }
  if (outcome === "timeout") return timedOut();
  // This child holds the port: its RPC answers as soon as the server loop runs.
  while (!(await rpcAnswers(rpcUrl, 500))) {
    if (state.exited) throw new AnvilError(`anvil exited (${JSON.stringify(state.exited)}) right after binding port ${port}: ${stderr.trim().slice(0, 500)}`);
    if (Date.now() > deadline) return timedOut();
    await new Promise((r) => setTimeout(r, 50));
  }
  return { rpcUrl, port, pid: child.pid ?? -1, stop };
}

/**
 * Start anvil on 127.0.0.1 and wait until its JSON-RPC answers. A free port is chosen unless one is
 * given; when the chosen port is taken between choosing and binding, it retries on a new one.
 */
export async function startAnvil(options: StartAnvilOptions = {}): Promise<AnvilNode> {
  const attempts = options.port ? 1 : (options.attempts ?? 5);
  let last: Error | null = null;
  for (let i = 0; i < attempts; i++) {
    const port = options.port ?? (await (options.pickPort ?? freePort)());
    try {
      return await startOnce(port, options);
    } catch (e) {
      if (!(e instanceof PortTakenError)) throw e;
      last = e;
    }
  }
  throw last ?? new AnvilError("anvil did not start");
}
