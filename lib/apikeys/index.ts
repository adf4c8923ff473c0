/** API keys: the secret shown once, only its SHA-256 stored; each route asks for its own scope (./scopes.ts). */
import { createHash, randomBytes } from "node:crypto";
import { db } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { requireRole } from "@/lib/auth/roles";
import { API_KEY_SCOPES, API_KEY_SCOPE_WORDS, parseScopes, type ApiKeyScope } from "./scopes";
import { forgetKey, lookUpKey } from "./cache";

export { API_KEY_SCOPES, API_KEY_SCOPE_WORDS, isApiKeyScope, parseScopes, type ApiKeyScope } from "./scopes";

export const API_KEY_PREFIX = "tg_";
const KEY_SHAPE = /^tg_[A-Za-z0-9_-]{43}$/;
const DISPLAY_PREFIX_LENGTH = 9;
/** A hint, written at most once a minute per key. */
const LAST_USED_RESOLUTION_MS = 60_000;

export interface ApiKeyInfo {
  id: string;
  name: string;
  prefix: string;
  scopes: ApiKeyScope[];
  createdAt: string;
  createdById: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

export function hashApiKey(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}

export function parseCreateApiKey(body: unknown): { name: string; scopes: ApiKeyScope[] } {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw new AppError("bad_request", "The body must be a JSON object {name, scopes}", [{ pointer: "", message: "must be an object {name, scopes}" }]);
  const fields = body as Record<string, unknown>;
  const extra = Object.keys(fields).filter((k) => k !== "name" && k !== "scopes");
  if (extra.length) throw new AppError("bad_request", `/${extra[0]} is not a known field`, extra.map((k) => ({ pointer: `/${k}`, message: "is not a known field" })));
  const name = fields.name;
  if (typeof name !== "string" || name.trim() === "" || name.length > 100) {
    throw new AppError("bad_request", "/name must be a non-empty string of at most 100 characters", [{ pointer: "/name", message: "must be a non-empty string of at most 100 characters" }]);
  }
  return { name: name.trim(), scopes: parseScopes(fields.scopes) };
}

/** The secret is in this return value and nowhere else, ever. */
export async function createApiKey(input: { actorId: string | null; name: string; scopes: readonly ApiKeyScope[] }): Promise<ApiKeyInfo & { secret: string }> {
  const actor = await requireRole(input.actorId, ["admin"]);
  const scopes = parseScopes(input.scopes);
  const secret = API_KEY_PREFIX + randomBytes(32).toString("base64url");
  const prisma = await db();
  const row = await prisma.apiKey.create({
    data: { name: input.name, prefix: secret.slice(0, DISPLAY_PREFIX_LENGTH), hash: hashApiKey(secret), scopes, createdById: actor.id },
  });
  return { ...info(row), secret };
}

export async function listApiKeys(input: { actorId: string | null }): Promise<ApiKeyInfo[]> {
  await requireRole(input.actorId, ["admin"]);
  const prisma = await db();
  return (await prisma.apiKey.findMany({ orderBy: { createdAt: "desc" } })).map(info);
}

export async function revokeApiKey(input: { actorId: string | null; id: string }): Promise<ApiKeyInfo> {
  await requireRole(input.actorId, ["admin"]);
  const prisma = await db();
  const existing = await prisma.apiKey.findUnique({ where: { id: input.id } });
  if (!existing) throw new AppError("not_found", `API key ${input.id} does not exist`);
  if (existing.revokedAt) return info(existing);
  const revoked = info(await prisma.apiKey.update({ where: { id: input.id }, data: { revokedAt: new Date() } }));
  forgetKey(prisma, existing.hash);
  return revoked;
}

/** One 401 for every bad key, so nothing tells which keys exist. */
export async function authenticateApiKey(authorization: string | null | undefined, scope: ApiKeyScope, opts: { fresh?: boolean } = {}): Promise<{ id: string; name: string; scopes: ApiKeyScope[] }> {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
  const secret = m?.[1];
  const refuse = () =>
    new AppError("unauthorized", "An API key is required: send Authorization: Bearer tg_… (keys are issued by a Tollgate admin).", [], { scheme: "Bearer" });
  if (!secret || !KEY_SHAPE.test(secret)) throw refuse();
  const prisma = await db();
  const hash = hashApiKey(secret);
  const read = () => prisma.apiKey.findUnique({ where: { hash }, select: { id: true, name: true, scopes: true, revokedAt: true, lastUsedAt: true } });
  const key = opts.fresh ? await read() : await lookUpKey(prisma, hash, read);
  if (!key || key.revokedAt) throw refuse();
  const scopes = API_KEY_SCOPES.filter((s) => key.scopes.includes(s));
  if (!scopes.includes(scope)) {
    throw new AppError(
      "insufficient_scope",
      `This API key ("${key.name}") lacks the scope ${scope} (${API_KEY_SCOPE_WORDS[scope].routes}); it holds ${scopes.join(", ")}. An admin can make a key with it at /admin/api-keys.`,
      [],
      { requiredScope: scope, scopes },
    );
  }
  const now = new Date();
  if (!key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    key.lastUsedAt = now;
    await prisma.apiKey.update({ where: { id: key.id }, data: { lastUsedAt: now } });
  }
  return { id: key.id, name: key.name, scopes };
}

function info(row: { id: string; name: string; prefix: string; scopes: string[]; createdAt: Date; createdById: string; revokedAt: Date | null; lastUsedAt: Date | null }): ApiKeyInfo {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scopes: API_KEY_SCOPES.filter((s) => row.scopes.includes(s)),
    createdAt: row.createdAt.toISOString(),
    createdById: row.createdById,
    revokedAt: row.revokedAt?.toISOString() ?? null,
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
  };
}
