/** JSON.parse that refuses repeated member names, so one envelope cannot mean two things to two verifiers. */

export class StrictJsonError extends Error {}

const WS = /[ \t\n\r]*/y;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const STRING = /"(?:[^"\\\u0000-\u001F]|\\(?:["\\/bfnrt]|u[0-9A-Fa-f]{4}))*"/y;
const MAX_DEPTH = 64;

export function parseJsonStrict(text: string): unknown {
  let i = 0;
  const ws = () => {
    WS.lastIndex = i;
    WS.exec(text);
    i = WS.lastIndex;
  };
  const fail = (what: string): never => {
    throw new StrictJsonError(`${what} at offset ${i}`);
  };
  const token = (re: RegExp): string | null => {
    re.lastIndex = i;
    const m = re.exec(text);
    if (!m) return null;
    i = re.lastIndex;
    return m[0];
  };
  const value = (depth: number): unknown => {
    if (depth > MAX_DEPTH) fail(`nesting deeper than ${MAX_DEPTH}`);
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      const out: Record<string, unknown> = {};
      const seen = new Set<string>();
      ws();
      if (text[i] === "}") return i++, out;
      for (;;) {
        ws();
        const raw = token(STRING);
        if (raw === null) fail("expected a member name");
        const name = JSON.parse(raw!) as string;
        if (seen.has(name)) fail(`duplicate key ${JSON.stringify(name)}`);
        seen.add(name);
        ws();
        if (text[i] !== ":") fail("expected ':'");
        i++;
        const v = value(depth + 1);
        // defineProperty: a member named "__proto__" is data, as with JSON.parse.
        Object.defineProperty(out, name, { value: v, enumerable: true, writable: true, configurable: true });
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "}") return i++, out;
        fail("expected ',' or '}'");
      }
    }
    if (c === "[") {
      i++;
      const out: unknown[] = [];
      ws();
      if (text[i] === "]") return i++, out;
      for (;;) {
        out.push(value(depth + 1));
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "]") return i++, out;
        fail("expected ',' or ']'");
      }
    }
    if (c === '"') {
      const raw = token(STRING);
      if (raw === null) fail("malformed string");
      return JSON.parse(raw!);
    }
    for (const [lit, v] of [["true", true], ["false", false], ["null", null]] as const) {
      if (text.startsWith(lit, i)) return (i += lit.length), v;
    }
    const num = token(NUMBER);
    if (num !== null) return JSON.parse(num);
    return fail(i >= text.length ? "unexpected end of input" : `unexpected character ${JSON.stringify(text[i])}`);
  };
  const v = value(0);
  ws();
  if (i !== text.length) fail("unexpected text after the JSON value");
  return v;
}
