/**
 * Ajv's logger for sellers' schemas: a seller may name a format no vocabulary defines ("int64",
 * "decimal"); Ajv ignores it (strict off) and would log a line per schema compiled. Those lines are
 * dropped; every other warning and error still reaches the console.
 */
const UNKNOWN_FORMAT = /^unknown format "/;

export const ajvLogger = {
  log: (...args: unknown[]) => console.log(...args),
  warn: (...args: unknown[]) => {
    if (typeof args[0] === "string" && UNKNOWN_FORMAT.test(args[0])) return;
    console.warn(...args);
  },
  error: (...args: unknown[]) => console.error(...args),
};
