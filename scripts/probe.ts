/**
 * `npm run probe -- <url> [--allow-host host:port]… [--deadline-ms N] [--vantage name]`
 *
 * Drafts a listing from the URL (its /.well-known/x402, /openapi.json and 402s) and probes it
 * without paying; prints the evidence JSON. A URL that is one endpoint is probed as that endpoint.
 * Exit codes: 0 evidence printed; 2 bad flags; 3 the URL was refused (the refusal JSON is printed).
 */
import { draftListingFromUrl } from "@/lib/discovery/import";
import { probeListing } from "@/lib/probe";

interface Args { url: string; allowHosts: string[]; deadlineMs?: number; vantage?: string }

function parse(argv: string[]): Args | string {
  const allowHosts: string[] = [];
  let url: string | undefined;
  let deadlineMs: number | undefined;
  let vantage: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = a.includes("=") ? a.slice(a.indexOf("=") + 1) : argv[++i];
      if (v === undefined || v === "") throw new Error(`${a.split("=")[0]} needs a value`);
      return v;
    };
    try {
      if (a === "--allow-host" || a.startsWith("--allow-host=")) {
        const v = value();
        if (!/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+):\d{1,5}$/i.test(v)) return `--allow-host takes host:port, got ${v}`;
        allowHosts.push(v);
      } else if (a === "--deadline-ms" || a.startsWith("--deadline-ms=")) {
        const n = Number(value());
        if (!Number.isInteger(n) || n < 100 || n > 60_000) return "--deadline-ms takes an integer from 100 to 60000";
        deadlineMs = n;
      } else if (a === "--vantage" || a.startsWith("--vantage=")) vantage = value();
      else if (a.startsWith("-")) return `unknown flag: ${a}`;
      else if (url === undefined) url = a;
      else return `unexpected argument: ${a}`;
    } catch (e) {
      return (e as Error).message;
    }
  }
  if (!url) return "usage: npm run probe -- <url> [--allow-host host:port]… [--deadline-ms N] [--vantage name]";
  return { url, allowHosts, deadlineMs, vantage };
}

async function main(): Promise<number> {
  const args = parse(process.argv.slice(2));
  if (typeof args === "string") {
    console.error(args);
    return 2;
  }
  const net = { allowHosts: args.allowHosts, deadlineMs: args.deadlineMs };
  const drafted = await draftListingFromUrl(args.url, net);
  if (!drafted.ok) {
    console.log(JSON.stringify("refusal" in drafted ? { ok: false, refusal: drafted.refusal, detail: drafted.detail } : { ok: false, error: drafted.error, detail: drafted.detail }));
    return "refusal" in drafted ? 3 : 1;
  }
  // The draft's unpaid calls stand as the probe's evidence for the same requests (one call each).
  const probed = await probeListing(drafted.draft, { ...net, vantage: args.vantage ?? "local", prefetched: drafted.calls });
  if (!probed.ok) {
    console.log(JSON.stringify({ ok: false, refusal: probed.refusal, detail: probed.detail }));
    return 3;
  }
  console.log(JSON.stringify({ ok: true, draft: drafted.draft, sources: drafted.sources, warnings: drafted.warnings, evidence: probed.evidence }, null, 2));
  return 0;
}

main().then((code) => process.exit(code), (e) => {
  console.error(e instanceof Error ? e.stack : e);
  process.exit(1);
});
