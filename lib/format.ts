/** Display helpers shared by pages (pure). */
import { KNOWN_ASSETS, SOLANA_MAINNET } from "@/lib/x402/assets";

const NETWORKS: Record<string, string> = {
  "eip155:8453": "Base",
  "eip155:84532": "Base Sepolia",
  "eip155:1": "Ethereum",
  "eip155:10": "Optimism",
  "eip155:137": "Polygon",
  "eip155:42161": "Arbitrum",
  "eip155:43114": "Avalanche",
  "eip155:143": "Monad",
  "eip155:1329": "Sei",
  "eip155:5042": "Arc",
  [SOLANA_MAINNET]: "Solana",
};

/** This table, then the asset table's, else the id itself. */
export function networkName(caip2: string): string {
  return NETWORKS[caip2] ?? KNOWN_ASSETS.find((a) => a.network === caip2)?.networkName ?? caip2;
}

export function formatUsd(decimal: string | number): string {
  const n = Number(decimal);
  if (!Number.isFinite(n)) return String(decimal);
  // Sub-dollar prices keep three significant digits: per-call prices are often fractions of a cent.
  return n >= 1 ? `$${n.toFixed(2)}` : `$${Number(n.toPrecision(3))}`;
}

/** The canary's amounts are atomic units of a 6-decimal USD stablecoin. */
const USDC_DECIMALS = 6;

/** "4950000" → "$4.95"; anything else as it came. */
export function formatUsdcAtomic(atomic: string | bigint | null | undefined): string {
  if (atomic === null || atomic === undefined) return "—";
  const s = String(atomic);
  if (!/^-?\d{1,38}$/.test(s)) return s;
  const neg = s.startsWith("-");
  const digits = (neg ? s.slice(1) : s).padStart(USDC_DECIMALS + 1, "0");
  const whole = digits.slice(0, -USDC_DECIMALS);
  const frac = digits.slice(-USDC_DECIMALS).replace(/0+$/, "");
  return `${neg ? "-" : ""}${formatUsd(frac ? `${whole}.${frac}` : whole)}`;
}

export function timeAgo(date: Date | string, now = new Date()): string {
  const ms = now.getTime() - new Date(date).getTime();
  const min = Math.round(ms / 60_000);
  if (min < 1) return "just now";
  if (min < 60) return `${min} min ago`;
  const h = Math.round(min / 60);
  if (h < 48) return `${h} h ago`;
  return `${Math.round(h / 24)} days ago`;
}

/** Truncated, never rounded up: 89.499999 reads 89.49 beside its total 89 (readiness/1.1.0 "total"). */
export function formatRawTotal(raw: number): string {
  const t = Math.floor(raw * 100 + 1e-9) / 100;
  return Number.isInteger(t) ? String(t) : t.toFixed(2).replace(/0$/, "");
}
