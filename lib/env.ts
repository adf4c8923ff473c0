import path from "node:path";
import ipaddr from "ipaddr.js";
import { z } from "zod";

/** The validated environment: a missing or malformed variable stops start-up, named. */
const flag = z
  .enum(["0", "1", "true", "false"])
  .optional()
  .transform((v) => v === "1" || v === "true");

/** "<count>/<window>" or "off"; unset: lib/limits/config.ts's default. */
const rateLimit = z
  .string()
  .regex(/^(off|[1-9]\d{0,6}\/[1-9]\d{0,4}[smhd])$/, 'must be "<count>/<window>" such as 20/1h or 30/10m (window in s, m, h or d), or "off"')
  .optional();

const cidrList = z
  .string()
  .superRefine((value, ctx) => {
    for (const entry of value.split(/[\s,]+/).filter(Boolean)) {
      const spelled = entry.split("/")[0];
      const address = ipaddr.IPv4.isValidFourPartDecimal(spelled) || (spelled.includes(":") && ipaddr.IPv6.isValid(spelled));
      const ok = address && (!entry.includes("/") || (() => { try { ipaddr.parseCIDR(entry); return true; } catch { return false; } })());
      if (!ok) ctx.addIssue({ code: "custom", message: `must be a list of CIDR ranges or IP addresses (e.g. 10.0.0.0/8, 2001:db8::/32); ${JSON.stringify(entry.slice(0, 60))} is neither` });
    }
  })
  .optional();

const schema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\/.+/, "must be a postgresql:// connection URL")
    .optional(),
  /** Server mode: the tables' owner, for `npm run db:migrate` only (docs/DATA-MODEL.md "Who may do what"). */
  TOLLGATE_MIGRATE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\/.+/, "must be a postgresql:// connection URL")
    .optional(),
  TOLLGATE_DATA_DIR: z.string().min(1).optional(),
  /** The only origin SIWE messages may name; required in production (NEXTAUTH_URL stands in). */
  TOLLGATE_PUBLIC_URL: z.string().url("must be an absolute URL such as http://127.0.0.1:3000").optional(),
  NEXTAUTH_URL: z.string().url("must be an absolute URL").optional(),
  /** docs/ROUTER.md "The relay's origin". */
  TOLLGATE_ROUTER_ORIGIN: z.string().url("must be an absolute URL such as https://router.example.com").optional(),
  NEXTAUTH_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  TOLLGATE_DEMO_SIGNIN: flag,
  TOLLGATE_INPROCESS_WORKER: flag,
  TOLLGATE_SCHEDULER: z
    .enum(["0", "1", "true", "false"])
    .optional()
    .transform((v) => v !== "0" && v !== "false"),
  TOLLGATE_RANK_TICK_S: z.coerce.number().int().min(1, "must be a whole number of seconds, 1 or more").max(3_600, "must be at most 3600 seconds").default(30),
  TOLLGATE_WORKER_TOKEN: z.string().min(24, "must be at least 24 characters").optional(),
  /** Loopback host:port entries reachable over plain http. */
  TOLLGATE_PROBE_ALLOW_HOSTS: z
    .string()
    .regex(/^([A-Za-z0-9.-]+:\d{1,5})(,[A-Za-z0-9.-]+:\d{1,5})*$/, "must be a comma-separated list of host:port")
    .optional(),
  /** URLs that answer whenever the monitor's network works (docs/ARCHITECTURE.md "Processes", the monitor's own outage). */
  TOLLGATE_MONITOR_REFERENCES: z
    .string()
    .refine((v) => v.split(",").every((u) => /^https?:\/\/[^\s,]+$/.test(u) && URL.canParse(u)), "must be a comma-separated list of http(s) URLs")
    .optional(),
  TOLLGATE_NET_ALLOWLIST_ONLY: flag,
  /** docs/SSRF.md "Address rules". */
  TOLLGATE_NET_DENY: cidrList,
  TOLLGATE_NET_ALLOW: cidrList,
  TOLLGATE_NET_MAX_CONNECTIONS: z.string().regex(/^[1-9]\d{0,6}$/, "must be a positive whole number").optional(),
  TOLLGATE_NET_MAX_CONNECTIONS_PER_HOST: z.string().regex(/^[1-9]\d{0,6}$/, "must be a positive whole number").optional(),
  TOLLGATE_NET_MAX_QUEUED: z.string().regex(/^[1-9]\d{0,6}$/, "must be a positive whole number").optional(),
  TOLLGATE_SIWE_CHAIN_ID: z.coerce.number().int().min(1).default(8453),
  SELLERS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  /** The local chain (anvil, eip155:31337). */
  TOLLGATE_CHAIN_RPC_URL: z.string().url("must be an absolute URL such as http://127.0.0.1:8545").optional(),
  /** Unset: the facilitator routes answer 503. */
  TOLLGATE_FACILITATOR_KEY: z.string().regex(/^0x[0-9a-fA-F]{64}$/, "must be a 0x-prefixed 32-byte hex private key").optional(),
  /** Unset: TOLLGATE_FACILITATOR_KEY. */
  TOLLGATE_EVIDENCE_ROOTS_KEY: z.string().regex(/^0x[0-9a-fA-F]{64}$/, "must be a 0x-prefixed 32-byte hex private key").optional(),
  /** `<name>=<secret>` pairs (docs/CHAIN.md "Who may settle"). */
  TOLLGATE_FACILITATOR_TOKENS: z
    .string()
    .regex(/^([a-z0-9][-a-z0-9]{0,39}=[A-Za-z0-9_-]{32,200})(,[a-z0-9][-a-z0-9]{0,39}=[A-Za-z0-9_-]{32,200})*$/, "must be <name>=<secret> pairs separated by commas (name [a-z0-9-], secret 32 or more of [A-Za-z0-9_-])")
    .optional(),
  /** Per caller per UTC day; "off" for none. */
  TOLLGATE_FACILITATOR_GAS_DAY: z.string().regex(/^(off|[1-9]\d{0,17})$/, 'must be a positive whole number of gas units, or "off"').default("30000000"),
  TOLLGATE_LIMIT_INTAKE: rateLimit,
  TOLLGATE_LIMIT_PUBLISH: rateLimit,
  TOLLGATE_LIMIT_REANALYSE: rateLimit,
  TOLLGATE_LIMIT_LISTINGS: rateLimit,
  TOLLGATE_LIMIT_NONCE: rateLimit,
  TOLLGATE_LIMIT_NONCE_ALL: rateLimit,
  TOLLGATE_LIMIT_VERIFY: rateLimit,
  TOLLGATE_LIMIT_VERIFY_ALL: rateLimit,
  TOLLGATE_LIMIT_SELECT: rateLimit,
  TOLLGATE_LIMIT_CALL: rateLimit,
  TOLLGATE_LIMIT_FACILITATOR: rateLimit,
  TOLLGATE_LIMIT_FACILITATOR_PAYER: rateLimit,
  TOLLGATE_LIMIT_FAUCET: rateLimit,
  TOLLGATE_LIMIT_FAUCET_WALLET: rateLimit,
  TOLLGATE_CHAIN_PORT: z.coerce.number().int().min(0, "must be a port number, 0–65535").max(65535, "must be a port number, 0–65535").optional(),
  TOLLGATE_LIMIT_MCP: rateLimit,
  TOLLGATE_LIMIT_MCP_ALL: rateLimit,
  TOLLGATE_LIMIT_BADGE_VERIFY: rateLimit,
  TOLLGATE_LIMIT_BADGE_VERIFY_ALL: rateLimit,
  TOLLGATE_LIMIT_ATTESTATION: rateLimit,
  TOLLGATE_LIMIT_ATTESTATION_ALL: rateLimit,
  TOLLGATE_LIMIT_DISCOVERY: rateLimit,
  TOLLGATE_LIMIT_DISCOVERY_ALL: rateLimit,
  TOLLGATE_LIMIT_ACTIVE_ANALYSES: z
    .string()
    .regex(/^(off|[1-9]\d{0,5})$/, 'must be a positive whole number, or "off"')
    .optional(),
  /** docs/LIMITS.md "Who is counted". */
  TOLLGATE_TRUSTED_PROXIES: z.coerce.number().int().min(0).max(10).default(0),
  /** The canary's default house key (docs/CANARY.md "The house wallet"); unset, nothing is signed. */
  TOLLGATE_CANARY_KEY: z.string().regex(/^0x[0-9a-fA-F]{64}$/, "must be a 0x-prefixed 32-byte hex private key").optional(),
  /** Atomic units, as the canary amounts below. */
  TOLLGATE_CANARY_BUDGET_DAY: z.string().regex(/^(0|[1-9]\d{0,30})$/, "must be an integer string of atomic units").default("5000000"),
  TOLLGATE_CANARY_BUDGET_LISTING: z.string().regex(/^(0|[1-9]\d{0,30})$/, "must be an integer string of atomic units").default("500000"),
  TOLLGATE_CANARY_BUDGET_ORGANIZATION: z.string().regex(/^(0|[1-9]\d{0,30})$/, "must be an integer string of atomic units").default("1000000"),
  TOLLGATE_CANARY_BUDGET_PAYTO: z.string().regex(/^(0|[1-9]\d{0,30})$/, "must be an integer string of atomic units").default("1000000"),
  TOLLGATE_CANARY_PRICE_CEILING: z.string().regex(/^(0|[1-9]\d{0,30})$/, "must be an integer string of atomic units").default("100000"),
  TOLLGATE_QUEUE_RETENTION_DAYS: z
    .string()
    .regex(/^(off|[1-9]\d{0,4})$/, 'must be a whole number of days (1 or more), or "off"')
    .default("30"),
  /** Heartbeats cannot extend it. */
  TOLLGATE_ANALYSIS_TIMEOUT_S: z.coerce.number().int().min(1).max(86_400).default(900),
  BADGE_SIGNING_KEY: z.string().min(1).optional(),
  BADGE_PREVIOUS_KEYS: z.string().min(1).optional(),
});

export type Env = z.infer<typeof schema> & {
  dataDir: string;
  probeAllowHosts: string[];
  monitorReferences: string[];
  /** Never from a request. */
  publicOrigin: string;
  routerOrigin: string | null;
  rpcUrls: Record<string, string>;
  canaryKeys: Record<string, string>;
  evidenceRoots: Record<string, string>;
};

export const DEVELOPMENT_ORIGIN = "http://127.0.0.1:3000";

export class EnvError extends Error {
  constructor(public readonly variable: string, message: string) {
    super(`Environment variable ${variable} ${message}`);
    this.name = "EnvError";
  }
}

export function parseEnv(source: Record<string, string | undefined> = process.env): Env {
  // `VAR= cmd` means unset.
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = schema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new EnvError(String(issue.path[0] ?? "?"), issue.message);
  }
  const e = parsed.data;
  if (e.NODE_ENV === "production" && !e.NEXTAUTH_SECRET) {
    throw new EnvError("NEXTAUTH_SECRET", "is required in production (npm run demo generates one for you)");
  }
  if (e.TOLLGATE_MIGRATE_URL && !e.DATABASE_URL) {
    throw new EnvError("TOLLGATE_MIGRATE_URL", "needs DATABASE_URL too: it is the owner's login for migrating the server PostgreSQL the app reaches at DATABASE_URL");
  }
  const configuredUrl = e.TOLLGATE_PUBLIC_URL ?? e.NEXTAUTH_URL;
  if (e.NODE_ENV === "production" && !configuredUrl) {
    throw new EnvError("TOLLGATE_PUBLIC_URL", "is required in production: it is the only origin sign-in messages and badges may name (or set NEXTAUTH_URL)");
  }
  return {
    ...e,
    rpcUrls: parseRpcUrls(cleaned),
    canaryKeys: parseCanaryKeys(cleaned),
    evidenceRoots: parseEvidenceRoots(cleaned),
    publicOrigin: new URL(configuredUrl ?? DEVELOPMENT_ORIGIN).origin,
    routerOrigin: e.TOLLGATE_ROUTER_ORIGIN ? new URL(e.TOLLGATE_ROUTER_ORIGIN).origin : null,
    dataDir: path.resolve(/*turbopackIgnore: true*/ e.TOLLGATE_DATA_DIR ?? path.join(/*turbopackIgnore: true*/ process.cwd(), ".data")),
    probeAllowHosts: e.TOLLGATE_PROBE_ALLOW_HOSTS ? e.TOLLGATE_PROBE_ALLOW_HOSTS.split(",") : [],
    monitorReferences: e.TOLLGATE_MONITOR_REFERENCES ? e.TOLLGATE_MONITOR_REFERENCES.split(",") : [],
  };
}

const RPC_URL_PREFIX = "TOLLGATE_RPC_URL_";

function parseRpcUrls(source: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (!name.startsWith(RPC_URL_PREFIX) || value === undefined) continue;
    const suffix = name.slice(RPC_URL_PREFIX.length);
    // A CAIP-2 namespace has no "_", so the first "_" is the colon.
    const network = suffix.replace("_", ":");
    if (!/^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/.test(network)) {
      throw new EnvError(name, "must name a CAIP-2 network with \":\" written \"_\", e.g. TOLLGATE_RPC_URL_eip155_8453");
    }
    if (!z.string().url().safeParse(value).success || !/^(https?|wss?):\/\//.test(value)) {
      throw new EnvError(name, "must be an http(s):// or ws(s):// JSON-RPC URL");
    }
    out[network] = value;
  }
  return out;
}

const CANARY_KEY_PREFIX = "TOLLGATE_CANARY_KEY_";

function parseCanaryKeys(source: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (!name.startsWith(CANARY_KEY_PREFIX) || value === undefined) continue;
    const network = name.slice(CANARY_KEY_PREFIX.length).replace("_", ":");
    if (!/^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/.test(network)) {
      throw new EnvError(name, "must name a CAIP-2 network with \":\" written \"_\", e.g. TOLLGATE_CANARY_KEY_eip155_8453");
    }
    if (!/^0x[0-9a-fA-F]{64}$/.test(value)) throw new EnvError(name, "must be a 0x-prefixed 32-byte hex private key");
    out[network] = value;
  }
  return out;
}

const EVIDENCE_ROOTS_PREFIX = "TOLLGATE_EVIDENCE_ROOTS_";

function parseEvidenceRoots(source: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (!name.startsWith(EVIDENCE_ROOTS_PREFIX) || name === "TOLLGATE_EVIDENCE_ROOTS_KEY" || value === undefined) continue;
    const network = name.slice(EVIDENCE_ROOTS_PREFIX.length).replace("_", ":");
    if (!/^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/.test(network)) {
      throw new EnvError(name, "must name a CAIP-2 network with \":\" written \"_\", e.g. TOLLGATE_EVIDENCE_ROOTS_eip155_84532");
    }
    if (!/^0x[0-9a-fA-F]{40}$/.test(value)) throw new EnvError(name, "must be the EvidenceRoots contract's 0x-prefixed 20-byte address");
    if (Object.keys(out).length > 0) throw new EnvError(name, `names a second network (${Object.keys(out)[0]} is set): daily roots are published on one network`);
    out[network] = value;
  }
  return out;
}

let cached: Env | undefined;
export function env(): Env {
  return (cached ??= parseEnv());
}
