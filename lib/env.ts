import path from "node:path";
import ipaddr from "ipaddr.js";
import { z } from "zod";

/**
 * The validated environment. Every variable the product reads is named here; a missing or
 * malformed one stops start-up with a message naming it (issue: "Bad input").
 */
const flag = z
  .enum(["0", "1", "true", "false"])
  .optional()
  .transform((v) => v === "1" || v === "true");

/**
 * A rate limit: "<count>/<window>" (window 30s, 10m, 1h, 1d…), or "off". Unset: the default in
 * lib/limits/config.ts (docs/LIMITS.md has the table).
 */
const rateLimit = z
  .string()
  .regex(/^(off|[1-9]\d{0,6}\/[1-9]\d{0,4}[smhd])$/, 'must be "<count>/<window>" such as 20/1h or 30/10m (window in s, m, h or d), or "off"')
  .optional();

/** A list of CIDR ranges or addresses ("10.0.0.0/8, 2001:db8::/32 192.0.2.7"), each checked with ipaddr.js. */
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
  /** Unset: the embedded PGlite default. Set: a server PostgreSQL through @prisma/adapter-pg. */
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\/.+/, "must be a postgresql:// connection URL")
    .optional(),
  /**
   * Server mode: the tables' owner, for `npm run db:migrate` only. With it, the migrations run as the
   * owner and DATABASE_URL's user (the app's role, which owns nothing) is granted what the app needs
   * (docs/DATA-MODEL.md "Who may do what"). Unset: db:migrate runs as DATABASE_URL's user.
   */
  TOLLGATE_MIGRATE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\/.+/, "must be a postgresql:// connection URL")
    .optional(),
  /** Where the embedded database, badge keys and generated secrets live (git-ignored). */
  TOLLGATE_DATA_DIR: z.string().min(1).optional(),
  /**
   * The public origin of this deployment: the only origin Sign-In with Ethereum messages may name,
   * and the one badges, feeds and snippets link to. Required in production (NEXTAUTH_URL stands in).
   */
  TOLLGATE_PUBLIC_URL: z.string().url("must be an absolute URL such as http://127.0.0.1:3000").optional(),
  NEXTAUTH_URL: z.string().url("must be an absolute URL").optional(),
  /**
   * The router's own origin (docs/ROUTER.md "The relay's origin"): when set, `/router/call` answers
   * only there (on the public origin it is a 421 naming this one), select answers' callUrl name it,
   * and the public origin's pages never share an origin with a seller's relayed content.
   */
  TOLLGATE_ROUTER_ORIGIN: z.string().url("must be an absolute URL such as https://router.example.com").optional(),
  NEXTAUTH_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  /** Enables the development sign-in with seeded demo accounts. Never on unless asked for. */
  TOLLGATE_DEMO_SIGNIN: flag,
  /** Runs the catalog-monitor worker loop inside the web server (the embedded default does). */
  TOLLGATE_INPROCESS_WORKER: flag,
  /** The web server runs the periodic sweeps (default on; set 0 on instances that should not). */
  TOLLGATE_SCHEDULER: z
    .enum(["0", "1", "true", "false"])
    .optional()
    .transform((v) => v !== "0" && v !== "false"),
  /** Seconds between rank ticks (the due sweep, lib/rank/ticks.ts; default 30). Shorter in the scale-out test, so two instances contend for the leader often. */
  TOLLGATE_RANK_TICK_S: z.coerce.number().int().min(1, "must be a whole number of seconds, 1 or more").max(3_600, "must be at most 3600 seconds").default(30),
  /** Bearer token the catalog-monitor workers present to the ops API. */
  TOLLGATE_WORKER_TOKEN: z.string().min(24, "must be at least 24 characters").optional(),
  /** host:port entries the probe may reach over plain http on loopback (demo fixture sellers). */
  TOLLGATE_PROBE_ALLOW_HOSTS: z
    .string()
    .regex(/^([A-Za-z0-9.-]+:\d{1,5})(,[A-Za-z0-9.-]+:\d{1,5})*$/, "must be a comma-separated list of host:port")
    .optional(),
  /** Reach only TOLLGATE_PROBE_ALLOW_HOSTS (no DNS for anything else): sandboxed demos and staging. */
  TOLLGATE_NET_ALLOWLIST_ONLY: flag,
  /**
   * Operator address ranges for the outbound guard (lib/net, docs/SSRF.md "Address rules"): CIDRs or
   * addresses, comma- or space-separated. DENY is refused whatever else is said; ALLOW lifts the
   * built-in refusal of a private range, never a deny, a cloud endpoint or this host's own addresses.
   */
  TOLLGATE_NET_DENY: cidrList,
  TOLLGATE_NET_ALLOW: cidrList,
  /** Outbound connections in flight at once, in total (default 64) and per target host (default 8); queued past them (docs/SSRF.md). */
  TOLLGATE_NET_MAX_CONNECTIONS: z.string().regex(/^[1-9]\d{0,6}$/, "must be a positive whole number").optional(),
  TOLLGATE_NET_MAX_CONNECTIONS_PER_HOST: z.string().regex(/^[1-9]\d{0,6}$/, "must be a positive whole number").optional(),
  /** Requests that may wait for a connection slot (default 1024); past it a request is refused with connection_limit. */
  TOLLGATE_NET_MAX_QUEUED: z.string().regex(/^[1-9]\d{0,6}$/, "must be a positive whole number").optional(),
  /** The EIP-155 chain id a Sign-In with Ethereum message must name (default 8453, Base). */
  TOLLGATE_SIWE_CHAIN_ID: z.coerce.number().int().min(1).default(8453),
  SELLERS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  /** JSON-RPC of the local chain (anvil, eip155:31337) the built-in facilitator settles on. */
  TOLLGATE_CHAIN_RPC_URL: z.string().url("must be an absolute URL such as http://127.0.0.1:8545").optional(),
  /**
   * The built-in facilitator's signer key (it pays gas and submits settlements). Unset: the
   * facilitator routes answer 503. In the demo and tests an anvil development key (public; local only).
   */
  TOLLGATE_FACILITATOR_KEY: z.string().regex(/^0x[0-9a-fA-F]{64}$/, "must be a 0x-prefixed 32-byte hex private key").optional(),
  /** The key that publishes daily roots (EvidenceRoots' owner); unset, TOLLGATE_FACILITATOR_KEY (docs/CHAIN.md "Evidence roots"). */
  TOLLGATE_EVIDENCE_ROOTS_KEY: z.string().regex(/^0x[0-9a-fA-F]{64}$/, "must be a 0x-prefixed 32-byte hex private key").optional(),
  /**
   * The facilitator's named callers besides API keys (docs/CHAIN.md "Who may settle"): comma-separated
   * `<name>=<secret>` pairs, each secret at least 32 characters, sent as `Authorization: Bearer <secret>`.
   * The demo gives its sellers one; unset, only keys with the `facilitator:settle` scope may settle.
   */
  TOLLGATE_FACILITATOR_TOKENS: z
    .string()
    .regex(/^([a-z0-9][-a-z0-9]{0,39}=[A-Za-z0-9_-]{32,200})(,[a-z0-9][-a-z0-9]{0,39}=[A-Za-z0-9_-]{32,200})*$/, "must be <name>=<secret> pairs separated by commas (name [a-z0-9-], secret 32 or more of [A-Za-z0-9_-])")
    .optional(),
  /** Gas the facilitator's signer may spend per caller per UTC day (default 30000000, about 400 settlements; "off" for no budget). */
  TOLLGATE_FACILITATOR_GAS_DAY: z.string().regex(/^(off|[1-9]\d{0,17})$/, 'must be a positive whole number of gas units, or "off"').default("30000000"),
  /** Per-actor rate limits (docs/LIMITS.md): per signed-in user, per organisation, per client address or per API key. */
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
  /** The demo faucet (app/api/faucet, demo mode only): per client address and per funded wallet. */
  TOLLGATE_LIMIT_FAUCET: rateLimit,
  TOLLGATE_LIMIT_FAUCET_WALLET: rateLimit,
  /** The port `npm run demo` starts the local chain's JSON-RPC on (default 8545; 0 picks a free one). */
  TOLLGATE_CHAIN_PORT: z.coerce.number().int().min(0, "must be a port number, 0–65535").max(65535, "must be a port number, 0–65535").optional(),
  TOLLGATE_LIMIT_MCP: rateLimit,
  TOLLGATE_LIMIT_MCP_ALL: rateLimit,
  TOLLGATE_LIMIT_BADGE_VERIFY: rateLimit,
  TOLLGATE_LIMIT_BADGE_VERIFY_ALL: rateLimit,
  TOLLGATE_LIMIT_ATTESTATION: rateLimit,
  TOLLGATE_LIMIT_ATTESTATION_ALL: rateLimit,
  TOLLGATE_LIMIT_DISCOVERY: rateLimit,
  TOLLGATE_LIMIT_DISCOVERY_ALL: rateLimit,
  /** Most analyses one seller organisation may have queued or running at once (default 3; "off" for none). */
  TOLLGATE_LIMIT_ACTIVE_ANALYSES: z
    .string()
    .regex(/^(off|[1-9]\d{0,5})$/, 'must be a positive whole number, or "off"')
    .optional(),
  /**
   * How many proxies in front of this server append to X-Forwarded-For (default 0: Next.js's own
   * server fills it from the socket). The client address for per-address limits is the entry that
   * many places from the right (docs/LIMITS.md "Who is counted").
   */
  TOLLGATE_TRUSTED_PROXIES: z.coerce.number().int().min(0).max(10).default(0),
  /**
   * The canary's house wallet key (lib/canary): the catalog pays each listed endpoint with it, through
   * the router, to verify the listing. Unset: runs are refused (`no_house_wallet`), nothing is signed.
   * In the demo and tests a key derived from a public label, funded on the local chain only. The default
   * for every network without its own TOLLGATE_CANARY_KEY_<namespace>_<reference> (canaryKeys below;
   * docs/CANARY.md "The house wallet").
   */
  TOLLGATE_CANARY_KEY: z.string().regex(/^0x[0-9a-fA-F]{64}$/, "must be a 0x-prefixed 32-byte hex private key").optional(),
  /** The canary's spend cap per UTC day, all listings together, in atomic units of the asset (default 5000000: 5 USDC). */
  TOLLGATE_CANARY_BUDGET_DAY: z.string().regex(/^(0|[1-9]\d{0,30})$/, "must be an integer string of atomic units").default("5000000"),
  /** The canary's spend cap per listing per UTC day, in atomic units (default 500000: 0.5 USDC). */
  TOLLGATE_CANARY_BUDGET_LISTING: z.string().regex(/^(0|[1-9]\d{0,30})$/, "must be an integer string of atomic units").default("500000"),
  /** One seller organisation's share of the canary's day, all its listings together, in atomic units (default 1000000: 1 USDC, a fifth of the day). */
  TOLLGATE_CANARY_BUDGET_ORGANIZATION: z.string().regex(/^(0|[1-9]\d{0,30})$/, "must be an integer string of atomic units").default("1000000"),
  /** One payTo's share of the canary's day (per network, whoever lists it), in atomic units (default 1000000: 1 USDC). */
  TOLLGATE_CANARY_BUDGET_PAYTO: z.string().regex(/^(0|[1-9]\d{0,30})$/, "must be an integer string of atomic units").default("1000000"),
  /** The most the canary pays for one call without a moderator's approval, in atomic units (default 100000: 0.10 USDC). */
  TOLLGATE_CANARY_PRICE_CEILING: z.string().regex(/^(0|[1-9]\d{0,30})$/, "must be an integer string of atomic units").default("100000"),
  /**
   * Queue retention (docs/QUEUE.md "Retention"): finished analyses and their attempt-log rows older
   * than this many days move to the archive tables (default 30; "off" keeps everything live).
   */
  TOLLGATE_QUEUE_RETENTION_DAYS: z
    .string()
    .regex(/^(off|[1-9]\d{0,4})$/, 'must be a whole number of days (1 or more), or "off"')
    .default("30"),
  /** The hard timeout of one analysis attempt from its claim, in seconds (default 900); heartbeats cannot extend it. */
  TOLLGATE_ANALYSIS_TIMEOUT_S: z.coerce.number().int().min(1).max(86_400).default(900),
  BADGE_SIGNING_KEY: z.string().min(1).optional(),
  BADGE_PREVIOUS_KEYS: z.string().min(1).optional(),
});

export type Env = z.infer<typeof schema> & {
  dataDir: string;
  probeAllowHosts: string[];
  /**
   * This deployment's public origin (scheme://host[:port]), from TOLLGATE_PUBLIC_URL, else
   * NEXTAUTH_URL, else (development and tests only) DEVELOPMENT_ORIGIN. Never from a request: a Host
   * or X-Forwarded-* header a client sends cannot change what a signed message or badge names.
   */
  publicOrigin: string;
  /** The router's own origin (TOLLGATE_ROUTER_ORIGIN), or null when the relay answers on the public origin. */
  routerOrigin: string | null;
  /**
   * JSON-RPC URL per CAIP-2 network, from TOLLGATE_RPC_URL_<network with ":" written "_"> (e.g.
   * TOLLGATE_RPC_URL_eip155_8453 for Base). lib/chain/rpc.ts reads chains through these.
   */
  rpcUrls: Record<string, string>;
  /**
   * The canary's house key per CAIP-2 network, from TOLLGATE_CANARY_KEY_<namespace>_<reference> (e.g.
   * TOLLGATE_CANARY_KEY_eip155_8453 for Base), beside TOLLGATE_CANARY_KEY, the default for every other
   * network (docs/CANARY.md "The house wallet").
   */
  canaryKeys: Record<string, string>;
  /** EvidenceRoots' address per CAIP-2 network, from TOLLGATE_EVIDENCE_ROOTS_<namespace>_<reference> (one network at most). */
  evidenceRoots: Record<string, string>;
};

/** The origin assumed outside production when none is configured (next dev's own). */
export const DEVELOPMENT_ORIGIN = "http://127.0.0.1:3000";

export class EnvError extends Error {
  constructor(public readonly variable: string, message: string) {
    super(`Environment variable ${variable} ${message}`);
    this.name = "EnvError";
  }
}

export function parseEnv(source: Record<string, string | undefined> = process.env): Env {
  // Empty strings mean "unset" (a common result of `VAR= cmd`).
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
  };
}

const RPC_URL_PREFIX = "TOLLGATE_RPC_URL_";

/** TOLLGATE_RPC_URL_<namespace>_<reference> → { "<namespace>:<reference>": url }; a bad one stops start-up. */
function parseRpcUrls(source: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (!name.startsWith(RPC_URL_PREFIX) || value === undefined) continue;
    const suffix = name.slice(RPC_URL_PREFIX.length);
    // A CAIP-2 namespace has no "_" ([-a-z0-9]{3,8}), so the first "_" is the colon.
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

/** TOLLGATE_CANARY_KEY_<namespace>_<reference> → { "<namespace>:<reference>": key }; a bad one stops start-up. */
function parseCanaryKeys(source: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (!name.startsWith(CANARY_KEY_PREFIX) || value === undefined) continue;
    // As for the RPC URLs: a CAIP-2 namespace has no "_", so the first "_" is the colon.
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

/** TOLLGATE_EVIDENCE_ROOTS_<namespace>_<reference> → { "<namespace>:<reference>": address }; roots go to one network. */
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
/** The process environment, parsed once. */
export function env(): Env {
  return (cached ??= parseEnv());
}
