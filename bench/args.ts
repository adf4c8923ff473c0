/** What the benchmarks share: integer flags from the command line and a nearest-rank percentile. */

/** `--flag N` or `--flag=N` from argv; the default when absent; an integer below `min` stops the run naming the flag. */
export function intFlag(argv: readonly string[], flag: string, dflt: number, min: number): number {
  const i = argv.findIndex((x) => x === flag || x.startsWith(`${flag}=`));
  if (i < 0) return dflt;
  const v = argv[i].includes("=") ? argv[i].split("=")[1] : argv[i + 1];
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new Error(`${flag} takes an integer ≥ ${min}`);
  return n;
}

/** `--flag VALUE` or `--flag=VALUE` from argv; undefined when absent; a flag with no value stops the run naming it. */
export function stringFlag(argv: readonly string[], flag: string): string | undefined {
  const i = argv.findIndex((x) => x === flag || x.startsWith(`${flag}=`));
  if (i < 0) return undefined;
  const v = argv[i].includes("=") ? argv[i].slice(flag.length + 1) : argv[i + 1];
  if (!v || v.startsWith("--")) throw new Error(`${flag} takes a value`);
  return v;
}

/** The p-th percentile (nearest rank, 0–100) of xs; NaN for none. */
export function pct(xs: readonly number[], p: number): number {
  const s = [...xs].sort((x, y) => x - y);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN;
}
