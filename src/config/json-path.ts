// Readable JSON paths for diagnostics: `mcpServers.github.args[2]`, `mcpServers["my.server"].env`.

export type PathSegment = string | number;

const PLAIN_KEY = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

export function formatPath(segments: readonly PathSegment[]): string {
  let out = '';
  for (const segment of segments) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (PLAIN_KEY.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/** The segments of a path `formatPath` wrote; undefined for text it could not have written. */
export function parsePath(path: string): PathSegment[] | undefined {
  const segments: PathSegment[] = [];
  const part = /\.?([A-Za-z_$][A-Za-z0-9_$-]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/y;
  let at = 0;
  while (at < path.length) {
    part.lastIndex = at;
    const match = part.exec(path);
    if (!match || (at === 0 && path.startsWith('.'))) return undefined;
    if (match[1] !== undefined) segments.push(match[1]);
    else if (match[2] !== undefined) segments.push(Number(match[2]));
    else segments.push(JSON.parse(match[3] as string) as string);
    at = part.lastIndex;
  }
  return segments;
}
