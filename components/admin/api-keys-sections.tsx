/** The API keys desk's parts: the new key's form, its one-time secret, and the list of keys with revoke. */
import type { ApiKeyInfo } from "@/lib/apikeys";
import { API_KEY_SCOPES, API_KEY_SCOPE_WORDS, type ApiKeyScope } from "@/lib/apikeys/scopes";
import { timeAgo } from "@/lib/format";
import { CopyButton } from "../copy-button";

export type KeyFilter = "active" | "revoked" | "all";

interface NewKeyFormProps {
  name: string;
  setName: (name: string) => void;
  scopes: ApiKeyScope[];
  setScopes: (update: (now: ApiKeyScope[]) => ApiKeyScope[]) => void;
  pending: boolean;
  error: string | null;
  create: () => void;
}

export function NewKeyForm({ name, setName, scopes, setScopes, pending, error, create }: NewKeyFormProps) {
  return (
    <form
      className="rounded-xl border border-line bg-white p-4 sm:p-5"
      onSubmit={(e) => {
        e.preventDefault();
        create();
      }}
    >
      <label htmlFor="key-name" className="text-sm font-medium">New key&apos;s name</label>
      <div className="mt-1 flex flex-col gap-2 sm:flex-row">
        <input id="key-name" value={name} maxLength={100} onChange={(e) => setName(e.target.value)} placeholder="e.g. Research agent (staging)" className="w-full rounded-md border border-slate-300 px-3 py-2 text-sm" aria-describedby="key-name-hint" />
        <button type="submit" disabled={pending || !name.trim() || scopes.length === 0} className="shrink-0 rounded-md bg-brand px-4 py-2 text-sm font-medium text-white hover:bg-indigo-800 disabled:opacity-60">Create key</button>
      </div>
      <p id="key-name-hint" className="mt-1 text-xs text-muted">Who or what will use it, so you know which to revoke. {name.length} / 100</p>
      <fieldset className="mt-3">
        <legend className="text-sm font-medium">Scopes</legend>
        <p className="text-xs text-muted">What the key may do; a route it lacks the scope for answers 403 <code>insufficient_scope</code>. At least one.</p>
        <div className="mt-1 space-y-1">
          {API_KEY_SCOPES.map((s) => (
            <label key={s} className="flex items-start gap-2 text-sm">
              <input
                type="checkbox"
                className="mt-1"
                checked={scopes.includes(s)}
                onChange={(e) => setScopes((now) => API_KEY_SCOPES.filter((x) => (x === s ? e.target.checked : now.includes(x))))}
              />
              <span>
                <code>{s}</code> <span className="text-muted">— {API_KEY_SCOPE_WORDS[s].what} ({API_KEY_SCOPE_WORDS[s].routes})</span>
              </span>
            </label>
          ))}
        </div>
      </fieldset>
      {error && <p role="alert" className="mt-2 text-sm text-red-800">{error}</p>}
    </form>
  );
}

export function NewKeySecret({ created, origin, example, curl }: { created: ApiKeyInfo & { secret: string }; origin: string; example: { slug: string; path: string } | null; curl: string }) {
  return (
    <section aria-labelledby="secret-h" className="rounded-xl border border-green-300 bg-green-50 p-4 text-sm text-green-950">
      <h2 id="secret-h" className="font-semibold">The secret of “{created.name}”</h2>
      <p className="mt-1">Copy it now and keep it somewhere safe: it is shown only this once.</p>
      <div className="mt-2 flex flex-wrap items-center gap-2">
        <code data-testid="api-key-secret" className="break-all rounded bg-white px-2 py-1 font-mono text-xs ring-1 ring-green-300">{created.secret}</code>
        <CopyButton text={created.secret} label="Copy secret" />
      </div>
      <p className="mt-2 text-xs">Scopes: {created.scopes.join(", ")}.</p>
      {created.scopes.includes("router:select") && (
        <p className="mt-1 text-xs" data-testid="select-curl">Select (replace <code>{created.prefix}…</code> with the secret): <code className="break-all">{curl}</code></p>
      )}
      {created.scopes.includes("router:call") && (
        <p className="mt-1 text-xs">Call and pay: <code className="break-all">{origin}/router/call/{example ? `${example.slug}/${example.path.replace(/^\/+/, "")}` : "<listing>/<path>"}</code> with <code>Authorization: Bearer {created.prefix}…</code> (or <code>X-Tollgate-Key</code> beside an MPP credential) and the buyer&apos;s own x402 or MPP client.</p>
      )}
    </section>
  );
}

interface KeysSectionProps {
  keys: ApiKeyInfo[];
  shown: ApiKeyInfo[];
  /** The page's render time (epoch ms): the "… ago" words come out the same on the server and in the browser. */
  now: number;
  filter: KeyFilter;
  setFilter: (filter: KeyFilter) => void;
  confirming: string | null;
  setConfirming: (id: string | null) => void;
  pending: boolean;
  revoke: (k: ApiKeyInfo) => void;
}

export function KeysSection({ keys, shown, now, filter, setFilter, confirming, setConfirming, pending, revoke }: KeysSectionProps) {
  return (
    <section aria-labelledby="keys-h">
      <div className="flex flex-wrap items-end justify-between gap-2">
        <h2 id="keys-h" className="text-lg font-semibold">Keys <span className="text-sm font-normal text-muted">({shown.length} of {keys.length})</span></h2>
        <label className="text-sm">
          Show{" "}
          <select value={filter} onChange={(e) => setFilter(e.target.value as KeyFilter)} className="rounded-md border border-slate-300 px-2 py-1 text-sm">
            <option value="active">Active</option>
            <option value="revoked">Revoked</option>
            <option value="all">All</option>
          </select>
        </label>
      </div>
      {shown.length === 0 ? (
        <p className="mt-3 rounded-lg border border-dashed border-line bg-white p-6 text-center text-sm text-muted">No {filter === "all" ? "" : `${filter} `}keys.</p>
      ) : (
        <div className="mt-3 relative overflow-x-auto rounded-xl border border-line bg-white">
          <table className="w-full min-w-[40rem] text-sm">
            <caption className="sr-only">API keys</caption>
            <thead className="bg-slate-50 text-left text-xs uppercase tracking-wide text-muted">
              <tr><th className="p-2.5">Name</th><th className="p-2.5">Key</th><th className="p-2.5">Scopes</th><th className="p-2.5">Status</th><th className="p-2.5">Created</th><th className="p-2.5">Last used</th><th className="p-2.5"><span className="sr-only">Actions</span></th></tr>
            </thead>
            <tbody className="divide-y divide-line">
              {shown.map((k) => (
                <tr key={k.id} data-key-id={k.id}>
                  <td className="p-2.5 font-medium">{k.name}</td>
                  <td className="p-2.5 font-mono text-xs">{k.prefix}…</td>
                  <td className="p-2.5 text-xs">
                    <ul>{k.scopes.map((s) => <li key={s} title={API_KEY_SCOPE_WORDS[s].routes}><code>{s}</code></li>)}</ul>
                  </td>
                  <td className="p-2.5">
                    {k.revokedAt ? <span className="rounded bg-red-50 px-1.5 py-0.5 text-xs font-semibold text-red-800">revoked {timeAgo(k.revokedAt, new Date(now))}</span> : <span className="rounded bg-green-50 px-1.5 py-0.5 text-xs font-semibold text-green-800">active</span>}
                  </td>
                  <td className="p-2.5 text-xs"><time dateTime={k.createdAt}>{timeAgo(k.createdAt, new Date(now))}</time></td>
                  <td className="p-2.5 text-xs">{k.lastUsedAt ? <time dateTime={k.lastUsedAt}>{timeAgo(k.lastUsedAt, new Date(now))}</time> : "never"}</td>
                  <td className="p-2.5 text-right">
                    {!k.revokedAt &&
                      (confirming === k.id ? (
                        <span className="inline-flex flex-wrap items-center justify-end gap-2">
                          <span className="text-xs">Revoke “{k.name}”? Agents using it stop at once.</span>
                          <button type="button" disabled={pending} onClick={() => revoke(k)} className="rounded-md bg-red-700 px-2.5 py-1 text-xs font-medium text-white hover:bg-red-800">Yes, revoke</button>
                          <button type="button" onClick={() => setConfirming(null)} className="rounded-md border border-line px-2.5 py-1 text-xs">Cancel</button>
                        </span>
                      ) : (
                        <button type="button" onClick={() => setConfirming(k.id)} className="rounded-md border border-red-300 px-2.5 py-1 text-xs text-red-800 hover:bg-red-50">Revoke</button>
                      ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
