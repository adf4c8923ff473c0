/**
 * Who may use the facilitator (docs/CHAIN.md "Who may settle"): a seller holding an API key with the
 * `facilitator:settle` scope, or a named caller of TOLLGATE_FACILITATOR_TOKENS (the demo's sellers).
 * Anyone else is refused before the body is read: 401 with no credential or an unknown one, 403
 * `insufficient_scope` for a live key without the scope. In-process callers (a rig's seller) call
 * lib/chain's facilitator directly and never reach this door.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { authenticateApiKey } from "@/lib/apikeys";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";

export interface FacilitatorCaller {
  /** The queue, limit and gas-budget key: `key:<api key id>` or `token:<name>`. */
  id: string;
  /** For people: the key's or the token's name. */
  name: string;
}

const sha = (s: string) => createHash("sha256").update(s, "utf8").digest();

/** The configured named tokens, `<name>=<secret>` pairs (lib/env.ts checked their shape). */
export function facilitatorTokens(raw = env().TOLLGATE_FACILITATOR_TOKENS): Array<{ name: string; digest: Buffer }> {
  if (!raw) return [];
  return raw.split(",").map((pair) => {
    const at = pair.indexOf("=");
    return { name: pair.slice(0, at), digest: sha(pair.slice(at + 1)) };
  });
}

const unauthorized = () =>
  new AppError(
    "unauthorized",
    "The facilitator settles only for Tollgate's own parties: send Authorization: Bearer <an API key with the facilitator:settle scope, or this deployment's seller token>.",
    [],
    { scheme: "Bearer" },
  );

/** The caller an Authorization header names, or the 401/403 that refuses it. */
export async function authenticateFacilitatorCaller(authorization: string | null): Promise<FacilitatorCaller> {
  const secret = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1];
  if (!secret) throw unauthorized();
  if (secret.startsWith("tg_")) {
    const key = await authenticateApiKey(authorization, "facilitator:settle");
    return { id: `key:${key.id}`, name: key.name };
  }
  const digest = sha(secret);
  const named = facilitatorTokens().find((t) => timingSafeEqual(t.digest, digest));
  if (!named) throw unauthorized();
  return { id: `token:${named.name}`, name: named.name };
}
