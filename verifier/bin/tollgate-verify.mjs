#!/usr/bin/env node
// The package's command: registers tsx (TypeScript sources, no build step), then runs src/cli.ts.
import { register } from "tsx/esm/api";

register();
const { run } = await import("../src/cli.ts");
process.exitCode = await run(process.argv.slice(2));
