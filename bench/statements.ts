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

/**
 * Prints statements per unit (a call, a run): the heading with the total and the summed wall time,
 * then one line each, ordered by count or by summed time, at most `top` lines.
 */
export function printStatements(per: ReadonlyMap<string, { n: number; ms: number }>, units: number, o: { heading: (total: string, wall: string) => string; by: "count" | "time"; top?: number }): void {
  const f = (x: number, places: number) => x.toFixed(places);
  const total = [...per.values()].reduce((a, x) => a + x.n, 0);
  const wall = [...per.values()].reduce((a, x) => a + x.ms, 0);
  console.log(o.heading(f(total / units, 2), f(wall / units, 2)));
  const order = [...per].sort((a, b) => (o.by === "count" ? b[1].n - a[1].n : b[1].ms - a[1].ms)).slice(0, o.top ?? Infinity);
  for (const [sql, x] of order) console.log(`  ${f(x.n / units, 2).padStart(6)} × ${f(x.ms / units, 2).padStart(7)} ms  ${sql}`);
}
