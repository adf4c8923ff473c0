import type { Metadata } from "next";
import Link from "next/link";
import { ApiKeysManager } from "@/components/admin/api-keys";
import { browseCatalog } from "@/lib/catalog/browse";
import { env } from "@/lib/env";
import { sessionUserId } from "@/lib/auth/session";
import { listApiKeys } from "@/lib/apikeys";
import { orPageError } from "@/lib/surfaces/guard";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "API keys · Moderation" };

/** Admins' API keys for /router/select, MCP select_services and /router/call: create (the secret shown once), name, scopes, last used, revoke. */
export default async function ApiKeysPage() {
  const uid = await sessionUserId();
  // Admins only (lib/apikeys reads the role fresh); a moderator gets 403 here as from the API.
  const keys = await orPageError(() => listApiKeys({ actorId: uid }), "/admin/api-keys");
  // The new key's examples use this deployment's origin and a listing that is really there.
  const listed = (await browseCatalog({ limit: 10 })).items.find((l) => l.endpoints.some((e) => e.payable));
  const payable = listed?.endpoints.find((e) => e.payable);
  const example = listed && payable ? { task: listed.title, slug: listed.slug, path: payable.path } : null;
  return (
    <div className="space-y-6">
      <p className="text-sm"><Link href="/admin" className="text-brand underline">← Moderation</Link></p>
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">API keys</h1>
        <p className="mt-1 max-w-3xl text-sm text-muted">
          Keys let an agent call, with <code>Authorization: Bearer tg_…</code>, what their scopes allow: <code>router:select</code> for <code>POST /router/select</code> and the MCP tool <code>select_services</code>, <code>router:call</code> for calling and paying listed endpoints through <code>/router/call/…</code>. The secret is shown once, when the key is made; only its hash is stored. A revoked key is refused at once.
        </p>
      </div>
      <ApiKeysManager keys={keys} origin={env().publicOrigin} example={example} now={Date.now()} />
    </div>
  );
}
