/**
 * Who may use the facilitator (docs/CHAIN.md "Who may settle"): a key with `facilitator:settle`, or a named
 * TOLLGATE_FACILITATOR_TOKENS caller; refused before the body is read.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { authenticateApiKey } from "@/lib/apikeys";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";

export interface FacilitatorCaller {
  /** `key:<api key id>` or `token:<name>`: the queue, limit and gas-budget key. */
  id: string;
  name: string;
}

const sha = (s: string) => createHash("sha256").update(s, "utf8").digest();

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
