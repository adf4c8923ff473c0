"use client";
/** The admins' API keys: create one (its secret shown once), list them, and revoke one after a confirmation. */
import { useRouter } from "next/navigation";
import { useMemo, useState, useTransition } from "react";
import type { ApiKeyInfo } from "@/lib/apikeys";
import type { ApiKeyScope } from "@/lib/apikeys/scopes";
import { useToast } from "../toast";
import { KeysSection, NewKeyForm, NewKeySecret, type KeyFilter } from "./api-keys-sections";

async function errorText(res: Response): Promise<string> {
  const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
  return body?.error?.message ?? `HTTP ${res.status}`;
}

/** The curl a new key's panel shows for select: this deployment's absolute URL and a task that finds a listed service. */
export function selectCurl(origin: string, prefix: string, task: string): string {
  const body = JSON.stringify({ task }).replace(/'/g, "'\\''");
  return `curl -X POST -H "Authorization: Bearer ${prefix}…" -H "content-type: application/json" -d '${body}' ${origin}/router/select`;
}

export function ApiKeysManager({ keys, origin, example, now }: { keys: ApiKeyInfo[]; origin: string; example: { task: string; slug: string; path: string } | null; now: number }) {
  const router = useRouter();
  const toast = useToast();
  const [name, setName] = useState("");
  // A new key starts with selection only (the surface that shows rankScore); calling and paying through the router is ticked on purpose.
  const [scopes, setScopes] = useState<ApiKeyScope[]>(["router:select"]);
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<(ApiKeyInfo & { secret: string }) | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [filter, setFilter] = useState<KeyFilter>("active");
  const [pending, start] = useTransition();
  const shown = useMemo(() => keys.filter((k) => (filter === "all" ? true : filter === "active" ? !k.revokedAt : !!k.revokedAt)), [keys, filter]);

  const create = () =>
    start(async () => {
      setError(null);
      const res = await fetch("/api/admin/api-keys", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name, scopes }) });
      if (!res.ok) return setError(await errorText(res));
      const key = (await res.json()) as ApiKeyInfo & { secret: string };
      setCreated(key);
      setName("");
      setScopes(["router:select"]);
      toast(`Key "${key.name}" created. Copy its secret now: it is not shown again.`);
      router.refresh();
    });

  const revoke = (k: ApiKeyInfo) =>
    start(async () => {
      setError(null);
      const res = await fetch(`/api/admin/api-keys/${encodeURIComponent(k.id)}`, { method: "DELETE" });
      setConfirming(null);
      if (!res.ok) return setError(await errorText(res));
      if (created?.id === k.id) setCreated(null);
      toast(`Key "${k.name}" revoked: calls with it are refused from now on.`);
      router.refresh();
    });

  return (
    <div className="space-y-6">
      <NewKeyForm name={name} setName={setName} scopes={scopes} setScopes={setScopes} pending={pending} error={error} create={create} />

      {created && <NewKeySecret created={created} origin={origin} example={example} curl={selectCurl(origin, created.prefix, example?.task ?? "translate a sentence")} />}

      <KeysSection keys={keys} shown={shown} now={now} filter={filter} setFilter={setFilter} confirming={confirming} setConfirming={setConfirming} pending={pending} revoke={revoke} />
    </div>
  );
}
