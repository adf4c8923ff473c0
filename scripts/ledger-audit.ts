/**
 * npm run ledger:audit -- [--format text|json]
 * Re-read every settled ledger row's transaction from the chain (lib/ledger/audit.ts) on the configured
 * database. Exit 0 when every row is bound, 1 when any is not, 3 when some could not be read, 2 on bad usage.
 */
import { database } from "@/lib/db";
import { auditLedger, formatAudit } from "@/lib/ledger/audit";

async function main(): Promise<number> {
  const i = process.argv.indexOf("--format");
  const format = i >= 0 ? process.argv[i + 1] : "text";
  if (format !== "text" && format !== "json") {
    process.stderr.write(`ledger:audit: --format must be text or json, not ${JSON.stringify(format)}\n`);
    return 2;
  }
  const handle = await database();
  try {
    const report = await auditLedger(handle.prisma);
    process.stdout.write(format === "json" ? JSON.stringify(report, null, 2) + "\n" : formatAudit(report));
    if (report.findings.some((f) => f.kind !== "unreadable")) return 1;
    return report.findings.length > 0 ? 3 : 0;
  } finally {
    await handle.close();
  }
}

main().then(
  (code) => { process.exitCode = code; },
  (err: unknown) => {
    process.stderr.write(`ledger:audit: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
