/**
 * `npm run sellers -- [--port 4020]`: the fixture sellers on 127.0.0.1 (loopback only), for the
 * demo and for trying the probe by hand. Port: --port, else SELLERS_PORT, else 4020.
 */
import { startFixtureSellers } from "@/sellers";

function parsePort(argv: string[]): number | string {
  let port: string | undefined = process.env.SELLERS_PORT;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--port") port = argv[++i];
    else if (a.startsWith("--port=")) port = a.slice("--port=".length);
    else if (a === "--help" || a === "-h") return "usage: npm run sellers -- [--port <1-65535>]   (default SELLERS_PORT or 4020)";
    else return `unknown argument: ${a}`;
  }
  if (port === undefined) return 4020;
  const n = Number(port);
  return Number.isInteger(n) && n >= 1 && n <= 65535 ? n : `invalid port: ${port}`;
}

async function main(): Promise<void> {
  const port = parsePort(process.argv.slice(2));
  if (typeof port === "string") {
    console.error(port);
    process.exit(2);
  }
  const server = await startFixtureSellers({ port, host: "127.0.0.1" });
  console.log(`fixture sellers on ${server.url} (loopback only)`);
  for (const s of server.sellers) console.log(`  ${server.url}/${s.slug}  — ${s.purpose}`);
  console.log(`probe one: npm run probe -- ${server.url}/agent-verdict --allow-host 127.0.0.1:${server.port}`);
  const stop = () => void server.close().then(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
