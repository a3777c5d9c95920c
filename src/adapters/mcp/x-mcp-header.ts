// 2026-07-28 (SEP-2243): a tool may ask that some arguments travel as `Mcp-Param-<Name>` HTTP headers,
// by marking the argument's schema with `x-mcp-header: "<Name>"`. The SDK writes the headers; a client
// over HTTP must leave out a tool whose marks it cannot honour. A mark is honoured when its name is a
// non-empty HTTP token (RFC 9110), unique without regard to case, on a string, integer or boolean
// property reached only through `properties` (not inside items, combinators, definitions, …).

const HEADER_KEY = 'x-mcp-header';
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HEADER_TYPES = new Set(['string', 'integer', 'boolean']);
/** Where a mark cannot be honoured (the argument is not a fixed top-down path of properties). */
const UNREACHABLE = [
  'items',
  'prefixItems',
  'contains',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'patternProperties',
  'dependentSchemas',
  'oneOf',
  'anyOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  '$defs',
  'definitions',
];

/** Why the tool's marks cannot be honoured, or undefined when they can (or there are none). */
export function headerMarkProblem(inputSchema: unknown): string | undefined {
  const seen = new Set<string>();
  const check = (node: unknown, at: string, reachable: boolean): string | undefined => {
    if (typeof node !== 'object' || node === null) return undefined;
    if (Array.isArray(node)) {
      for (const item of node) {
        const problem = check(item, at, reachable);
        if (problem) return problem;
      }
      return undefined;
    }
    const schema = node as Record<string, unknown>;
    if (HEADER_KEY in schema) {
      const name = schema[HEADER_KEY];
      if (!reachable || at === '') return `${at || 'the schema'}: ${HEADER_KEY} outside a plain property`;
      if (typeof name !== 'string' || name === '') return `${at}: empty ${HEADER_KEY}`;
      if (!TOKEN.test(name)) return `${at}: ${HEADER_KEY} "${name}" is not an HTTP header name`;
      if (typeof schema.type !== 'string' || !HEADER_TYPES.has(schema.type)) {
        return `${at}: ${HEADER_KEY} on a ${String(schema.type ?? 'untyped')} property (string, integer or boolean only)`;
      }
      if (seen.has(name.toLowerCase())) return `${HEADER_KEY} "${name}" is used twice`;
      seen.add(name.toLowerCase());
    }
    const properties = schema.properties;
    if (typeof properties === 'object' && properties !== null && !Array.isArray(properties)) {
      for (const [key, child] of Object.entries(properties)) {
        const problem = check(child, at ? `${at}.${key}` : key, reachable);
        if (problem) return problem;
      }
    }
    for (const keyword of UNREACHABLE) {
      const sub = schema[keyword];
      if (sub === undefined) continue;
      const branches =
        typeof sub === 'object' && sub !== null && !Array.isArray(sub) && isMapKeyword(keyword)
          ? Object.values(sub)
          : [sub];
      for (const branch of branches) {
        const problem = check(branch, `${at}<${keyword}>`, false);
        if (problem) return problem;
      }
    }
    return undefined;
  };
  return check(inputSchema, '', true);
}

function isMapKeyword(keyword: string): boolean {
  return (
    keyword === 'patternProperties' ||
    keyword === 'dependentSchemas' ||
    keyword === '$defs' ||
    keyword === 'definitions'
  );
}
