/**
 * Paths into a JSON deliverable (docs/AGENT-VERDICT.md "Paths"). Three spellings, one meaning:
 *
 * - `""` or `"$"`: the whole value;
 * - a JSON Pointer (RFC 6901) when the path starts with `/`: `/tests/failed`, `/items/0/name`;
 * - otherwise a dot path, as the product's example uses: `tests.failed`, `items[0].name`,
 *   `items.0.name`, with an optional leading `$.`. Keys holding `.`, `[` or `]` need the pointer form.
 *
 * An array is entered only by a canonical non-negative index; an object only by its own key.
 */
export type Segment = string;

export class PathError extends Error {}

const INDEX = /^(?:0|[1-9][0-9]*)$/;

export function parsePath(path: string): Segment[] {
  if (path === "" || path === "$") return [];
  if (path.startsWith("/")) {
    return path
      .slice(1)
      .split("/")
      .map((token) => {
        if (/~[^01]|~$/.test(token)) throw new PathError(`JSON Pointer token "${token}" has a "~" not followed by 0 or 1`);
        return token.replace(/~1/g, "/").replace(/~0/g, "~");
      });
  }
  const body = path.startsWith("$.") ? path.slice(2) : path.startsWith("$[") ? path.slice(1) : path;
  const segments: Segment[] = [];
  // A dot path is names separated by dots, each optionally followed by [index] groups; it may start with [index].
  const re = /([^.[\]]+)?((?:\[(?:0|[1-9][0-9]*)\])*)(\.|$)/y;
  let at = 0;
  while (at < body.length) {
    re.lastIndex = at;
    const m = re.exec(body);
    if (!m || m[0] === "" || (!m[1] && !m[2])) throw new PathError(`path "${path}" is not a dot path (name, name.name, name[0]) at character ${at + (path.length - body.length)}`);
    if (m[1]) segments.push(m[1]);
    for (const idx of m[2].matchAll(/\[([0-9]+)\]/g)) segments.push(idx[1]);
    at = re.lastIndex;
    if (m[3] === "." && at === body.length) throw new PathError(`path "${path}" ends with "."`);
  }
  if (body === "") throw new PathError(`path "${path}" names nothing after "$"`);
  return segments;
}

export type Resolved = { found: true; value: unknown } | { found: false };

export function resolvePath(root: unknown, segments: Segment[]): Resolved {
  let cur: unknown = root;
  for (const seg of segments) {
    if (Array.isArray(cur)) {
      if (!INDEX.test(seg)) return { found: false };
      const i = Number(seg);
      if (i >= cur.length) return { found: false };
      cur = cur[i];
    } else if (cur !== null && typeof cur === "object") {
      if (!Object.prototype.hasOwnProperty.call(cur, seg)) return { found: false };
      cur = (cur as Record<string, unknown>)[seg];
    } else {
      return { found: false };
    }
  }
  return { found: true, value: cur };
}
