import { headers } from "next/headers";
import { env } from "@/lib/env";

/** The catalog's public origin for absolute links (badge snippets): TOLLGATE_PUBLIC_URL, else this request's host. */
export async function publicOriginFromRequest(): Promise<string> {
  const configured = env().TOLLGATE_PUBLIC_URL;
  if (configured) return new URL(configured).origin;
  const h = await headers();
  const host = h.get("x-forwarded-host") ?? h.get("host") ?? "127.0.0.1:3000";
  const proto = h.get("x-forwarded-proto") ?? (host.startsWith("127.0.0.1") || host.startsWith("localhost") ? "http" : "https");
  return `${proto}://${host}`;
}
