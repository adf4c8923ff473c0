/**
 * npm run badge:verify -- <file.svg|envelope.json|url> [--keys <url|file>] [--base <origin>] [--allow-host host:port]
 * Prints the verdict JSON; exit 0 valid, 1 invalid, 2 bad usage, 3 superseded (authentic, but a newer result replaced it). Logic and docs: lib/badges/cli.ts, docs/BADGES.md.
 */
import { readFile } from "node:fs/promises";
import { runBadgeVerify } from "../lib/badges/cli";
import { safeFetch } from "../lib/net";

runBadgeVerify(process.argv.slice(2), {
  readFile: (p) => readFile(p, "utf8"),
  safeFetch,
  now: () => new Date(),
  stdout: (s) => process.stdout.write(s + "\n"),
  stderr: (s) => process.stderr.write(s + "\n"),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`badge:verify: ${(e as Error).stack ?? e}\n`);
    process.exitCode = 2;
  },
);
