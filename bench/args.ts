/** What the benchmarks share: integer and text flags from the command line and a nearest-rank percentile. */

/** The text after `--flag` or in `--flag=…`: null when the flag is absent, "" when nothing follows it. */
function flagText(argv: readonly string[], flag: string): string | null {
  const i = argv.findIndex((x) => x === flag || x.startsWith(`${flag}=`));
  if (i < 0) return null;
  return (argv[i].includes("=") ? argv[i].slice(flag.length + 1) : argv[i + 1]) ?? "";
}

/** `--flag N` or `--flag=N` from argv; the default when absent; an integer below `min` stops the run naming the flag. */
export function intFlag(argv: readonly string[], flag: string, dflt: number, min: number): number {
  const v = flagText(argv, flag);
  if (v === null) return dflt;
  const n = Number(v);
  if (v === "" || !Number.isInteger(n) || n < min) throw new Error(`${flag} takes an integer ≥ ${min}`);
  return n;
}

/** `--flag VALUE` or `--flag=VALUE` from argv; undefined when absent; a flag with no value stops the run naming it. */
export function stringFlag(argv: readonly string[], flag: string): string | undefined {
  const v = flagText(argv, flag);
  if (v === null) return undefined;
  if (v === "" || v.startsWith("--")) throw new Error(`${flag} takes a value`);
  return v;
}

/** The p-th percentile (nearest rank, 0–100) of xs; NaN for none. */
export function pct(xs: readonly number[], p: number): number {
  const s = [...xs].sort((x, y) => x - y);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN;
}
