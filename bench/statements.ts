/**
 * Counts the SQL statements a bench's code sends, on either database: PGlite's query/exec (what
 * Prisma's PGlite adapter and lib/sql send) or node-pg's Client.query (server PostgreSQL). Each
 * statement is keyed by its first words, so a report says which statements a call costs.
 */

export interface StatementCounter {
  /** Statements (and their summed wall time) since the last reset, by their first 70 characters. */
  snapshot(): Map<string, { n: number; ms: number }>;
  total(): number;
  reset(): void;
  /** Counting on (the default) or off (a bench's own bookkeeping queries). */
  counting(on: boolean): void;
}

let installed: StatementCounter | null = null;

/** Imported as lib/db.ts imports them (dynamically), so the classes patched are the ones it uses. */
export async function countStatements(): Promise<StatementCounter> {
  const [{ PGlite }, { default: pg }] = await Promise.all([import("@electric-sql/pglite"), import("pg")]);
  if (installed) return installed;
  const seen = new Map<string, { n: number; ms: number }>();
  let on = true;
  const note = (sql: unknown, ms: number) => {
    if (!on) return;
    const text = typeof sql === "string" ? sql : typeof (sql as { text?: unknown })?.text === "string" ? (sql as { text: string }).text : "?";
    const key = text.replace(/\s+/g, " ").trim().slice(0, 70);
    const s = seen.get(key) ?? { n: 0, ms: 0 };
    s.n++;
    s.ms += ms;
    seen.set(key, s);
  };
  const wrap = <T extends object>(proto: T, name: keyof T) => {
    const original = proto[name] as unknown as (...a: unknown[]) => unknown;
    (proto as Record<string, unknown>)[name as string] = function (this: unknown, ...a: unknown[]) {
      const started = performance.now();
      const last = a.length - 1;
      if (typeof a[last] === "function") {
        const callback = a[last] as (...r: unknown[]) => unknown;
        a[last] = (...r: unknown[]) => {
          note(a[0], performance.now() - started);
          return callback(...r);
        };
        return original.apply(this, a);
      }
      const out = original.apply(this, a);
      if (out && typeof (out as Promise<unknown>).then === "function") void (out as Promise<unknown>).then(() => note(a[0], performance.now() - started), () => note(a[0], performance.now() - started));
      else note(a[0], performance.now() - started);
      return out;
    };
  };
  wrap(PGlite.prototype, "query");
  wrap(PGlite.prototype, "exec");
  wrap(pg.Client.prototype, "query");
  installed = {
    snapshot: () => new Map(seen),
    total: () => [...seen.values()].reduce((a, s) => a + s.n, 0),
    reset: () => seen.clear(),
    counting: (v) => {
      on = v;
    },
  };
  return installed;
}
