import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { defineConfig } from "@playwright/test";

// Each e2e run gets its own data folder, so specs never share state with a developer's demo.
const dataDir = process.env.E2E_DATA_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-e2e-"));
process.env.E2E_DATA_DIR = dataDir;
const port = Number(process.env.E2E_PORT ?? 3100);
const sellersPort = Number(process.env.E2E_SELLERS_PORT ?? 4120);
// The local chain's RPC on its own fixed port, beside a developer's demo on 8545.
const chainPort = Number(process.env.E2E_CHAIN_PORT ?? 8645);
export const baseURL = `http://127.0.0.1:${port}`;

export default defineConfig({
  testDir: "e2e",
  outputDir: "e2e/.output/results",
  forbidOnly: !!process.env.CI,
  retries: 0,
  // One server with one embedded database: specs run one at a time and each seeds its own data.
  workers: 1,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: [["list"], ["html", { outputFolder: "e2e/.output/report", open: "never" }]],
  use: {
    baseURL,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    },
  },
  // E2E_SELF_CONTAINED=1: run only specs that bring their own rig (e2e/relay-inert.spec.ts), without the demo.
  webServer: process.env.E2E_SELF_CONTAINED ? undefined : {
    command: "npx tsx scripts/demo.ts",
    url: `${baseURL}/catalog`,
    // A fresh clone's first demo builds first: 2–10 minutes on 2 cores depending on the load (README).
    timeout: Number(process.env.E2E_SERVER_TIMEOUT_MS ?? 900_000),
    reuseExistingServer: false,
    stdout: "pipe",
    env: { TOLLGATE_DATA_DIR: dataDir, PORT: String(port), SELLERS_PORT: String(sellersPort), TOLLGATE_CHAIN_PORT: String(chainPort) },
  },
});
