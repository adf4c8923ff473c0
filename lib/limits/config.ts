/** The limits and their defaults (docs/LIMITS.md); each has an environment variable (lib/env.ts). */
import { env, type Env } from "@/lib/env";

/** At most `max` in each aligned window of `windowSeconds`; null: off. */
export interface RateLimit {
  max: number;
  windowSeconds: number;
}

export interface LimitedAction {
  variable: keyof Env & `TOLLGATE_LIMIT_${string}`;
  /** "<count>/<window>" when the variable is unset. */
  fallback: string;
  /** Plural, in words ("publish requests"). */
  what: string;
  per: string;
}

/** The bucket key is `<action>:<actor>`. */
export const LIMITED_ACTIONS = {
  intake: { variable: "TOLLGATE_LIMIT_INTAKE", fallback: "20/1h", what: "URL submissions (draft or queue)", per: "one user" },
  publish: { variable: "TOLLGATE_LIMIT_PUBLISH", fallback: "20/1h", what: "publish requests", per: "one user" },
  reanalyse: { variable: "TOLLGATE_LIMIT_REANALYSE", fallback: "30/1h", what: "re-analysis requests", per: "one user" },
  listings: { variable: "TOLLGATE_LIMIT_LISTINGS", fallback: "20/1d", what: "new listings", per: "one seller organisation" },
  nonce: { variable: "TOLLGATE_LIMIT_NONCE", fallback: "30/10m", what: "sign-in nonces", per: "one client address" },
  nonceAll: { variable: "TOLLGATE_LIMIT_NONCE_ALL", fallback: "600/1m", what: "sign-in nonces", per: "the whole deployment" },
  verify: { variable: "TOLLGATE_LIMIT_VERIFY", fallback: "30/10m", what: "wallet sign-in attempts", per: "one client address" },
  verifyAll: { variable: "TOLLGATE_LIMIT_VERIFY_ALL", fallback: "600/1m", what: "wallet sign-in attempts", per: "the whole deployment" },
  select: { variable: "TOLLGATE_LIMIT_SELECT", fallback: "120/1m", what: "select requests", per: "one API key" },
  call: { variable: "TOLLGATE_LIMIT_CALL", fallback: "600/1m", what: "relayed calls", per: "one API key" },
  facilitator: { variable: "TOLLGATE_LIMIT_FACILITATOR", fallback: "1200/1m", what: "facilitator verify and settle requests", per: "one facilitator caller" },
  facilitatorPayer: { variable: "TOLLGATE_LIMIT_FACILITATOR_PAYER", fallback: "600/1m", what: "facilitator verify and settle requests", per: "one payer" },
  faucet: { variable: "TOLLGATE_LIMIT_FAUCET", fallback: "10/1h", what: "demo faucet requests", per: "one client address" },
  faucetWallet: { variable: "TOLLGATE_LIMIT_FAUCET_WALLET", fallback: "5/1d", what: "demo faucet requests", per: "one wallet" },
  mcp: { variable: "TOLLGATE_LIMIT_MCP", fallback: "120/1m", what: "MCP requests", per: "one client address" },
  mcpAll: { variable: "TOLLGATE_LIMIT_MCP_ALL", fallback: "1200/1m", what: "MCP requests", per: "the whole deployment" },
  badgeVerify: { variable: "TOLLGATE_LIMIT_BADGE_VERIFY", fallback: "60/1m", what: "badge verifications", per: "one client address" },
  badgeVerifyAll: { variable: "TOLLGATE_LIMIT_BADGE_VERIFY_ALL", fallback: "600/1m", what: "badge verifications", per: "the whole deployment" },
  attestation: { variable: "TOLLGATE_LIMIT_ATTESTATION", fallback: "120/1m", what: "attestation and evidence requests", per: "one client address" },
  attestationAll: { variable: "TOLLGATE_LIMIT_ATTESTATION_ALL", fallback: "1200/1m", what: "attestation and evidence requests", per: "the whole deployment" },
  discovery: { variable: "TOLLGATE_LIMIT_DISCOVERY", fallback: "120/1m", what: "discovery API and shields requests", per: "one client address" },
  discoveryAll: { variable: "TOLLGATE_LIMIT_DISCOVERY_ALL", fallback: "1200/1m", what: "discovery API and shields requests", per: "the whole deployment" },
} as const satisfies Record<string, LimitedAction>;

export type ActionName = keyof typeof LIMITED_ACTIONS;

export const DEFAULT_ACTIVE_ANALYSES = 3;

export interface LimitsConfig {
  rates: Record<ActionName, RateLimit | null>;
  activeAnalyses: number | null;
  trustedProxies: number;
}

const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86_400 } as const;

/** "20/1h" → {max: 20, windowSeconds: 3600}; "off" → null. */
export function parseRateLimit(text: string): RateLimit | null {
  if (text === "off") return null;
  const m = /^(\d+)\/(\d+)([smhd])$/.exec(text);
  if (!m) throw new Error(`rate limit ${JSON.stringify(text)} is not "<count>/<window>"`);
  return { max: Number(m[1]), windowSeconds: Number(m[2]) * UNIT_SECONDS[m[3] as keyof typeof UNIT_SECONDS] };
}

export function limitsFromEnv(e: Env = env()): LimitsConfig {
  const rates = Object.fromEntries(
    Object.entries(LIMITED_ACTIONS).map(([name, a]) => [name, parseRateLimit((e[a.variable] as string | undefined) ?? a.fallback)]),
  ) as Record<ActionName, RateLimit | null>;
  const active = e.TOLLGATE_LIMIT_ACTIVE_ANALYSES;
  return { rates, activeAnalyses: active === undefined ? DEFAULT_ACTIVE_ANALYSES : active === "off" ? null : Number(active), trustedProxies: e.TOLLGATE_TRUSTED_PROXIES };
}

let current: LimitsConfig | undefined;

export function limitsConfig(): LimitsConfig {
  return (current ??= limitsFromEnv());
}

/** Tests only; returns the previous limits. */
export function configureLimits(over: { rates?: Partial<Record<ActionName, RateLimit | null>>; activeAnalyses?: number | null; trustedProxies?: number }): LimitsConfig {
  const previous = limitsConfig();
  current = { ...previous, ...over, rates: { ...previous.rates, ...over.rates } };
  return previous;
}

export function restoreLimits(previous?: LimitsConfig): void {
  current = previous;
}

/** "20 per hour", "30 per 10 minutes". */
export function describeRate(r: RateLimit): string {
  return `${r.max} per ${describeSeconds(r.windowSeconds, true)}`;
}

/** 3600 → "hour" after "per", else "1 hour"; 600 → "10 minutes". */
export function describeSeconds(s: number, afterPer = false): string {
  for (const [unit, size] of [["day", 86_400], ["hour", 3600], ["minute", 60]] as const) {
    if (s >= size && s % size === 0) {
      const n = s / size;
      return n === 1 ? (afterPer ? unit : `1 ${unit}`) : `${n} ${unit}s`;
    }
  }
  return s === 1 ? (afterPer ? "second" : "1 second") : `${s} seconds`;
}
