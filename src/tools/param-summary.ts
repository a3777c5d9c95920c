// A compact, one-line account of a tool's parameters, added to an error result when the server
// rejected the arguments, so the model can fix the call without searching again.

const MAX_PARAMETERS = 20;
const MAX_DESCRIPTION = 100;
const MAX_ENUM_VALUES = 8;

type Schema = Record<string, unknown>;

export function summarizeParameters(inputSchema: Record<string, unknown>): string {
  try {
    const properties = isSchema(inputSchema?.properties) ? inputSchema.properties : {};
    const required = new Set(Array.isArray(inputSchema?.required) ? inputSchema.required : []);
    const names = Object.keys(properties);
    if (names.length === 0) return 'Parameters: none.';
    const shown = names
      .slice(0, MAX_PARAMETERS)
      .map((name) => describeParameter(name, properties[name], required.has(name)));
    const more = names.length > MAX_PARAMETERS ? `; … and ${names.length - MAX_PARAMETERS} more` : '';
    return `Parameters: ${shown.join('; ')}${more}`;
  } catch {
    return 'Parameters: (the tool schema could not be read)';
  }
}

/** Whether an error message says the arguments were wrong (JSON-RPC -32602 or a validation failure). */
export function isArgumentError(message: string): boolean {
  if (typeof message !== 'string') return false;
  if (NOT_ABOUT_ARGUMENTS.test(message)) return false;
  return ABOUT_ARGUMENTS.some((pattern) => pattern.test(message));
}

// -32602 is also used for an unknown or disabled tool and for a bad result; those are not argument errors.
const NOT_ABOUT_ARGUMENTS = /output validation error|tool \S+ (not found|disabled)|unknown tool/i;

const ABOUT_ARGUMENTS = [
  /-32602\b/,
  /invalid (param|argument|input)/i,
  /input validation/i,
  /validation (error|failed)/i,
  /missing required/i,
  /required (property|parameter|argument|field)/i,
  /\bis required\b/i,
  /\binvalid_type\b/,
  /expected [\w"' |-]+, (got|received)\b/i,
  /unrecognized (key|argument|parameter|field|propert)/i,
  /unexpected (argument|parameter|field|propert|keyword)/i,
  /additional propert/i,
  /\bmust be (of type|one of|an? (string|number|integer|boolean|array|object|valid|finite|positive|non-?negative))/i,
];

function describeParameter(name: string, schema: unknown, required: boolean): string {
  const s = isSchema(schema) ? schema : {};
  const facts = [typeOf(s, 0)];
  if (required) facts.push('required');
  const range = rangeOf(s);
  if (range) facts.push(range);
  if (s.default !== undefined) facts.push(`default ${clip(JSON.stringify(s.default), 30)}`);
  const description =
    typeof s.description === 'string' ? clip(s.description.replace(/\s+/g, ' ').trim(), MAX_DESCRIPTION) : '';
  return `${name} (${facts.join(', ')})${description ? ` — ${description}` : ''}`;
}

function typeOf(s: Schema, depth: number): string {
  if (Array.isArray(s.enum)) {
    const values = s.enum.slice(0, MAX_ENUM_VALUES).map((v) => JSON.stringify(v));
    return values.join(' | ') + (s.enum.length > MAX_ENUM_VALUES ? ' | …' : '');
  }
  if ('const' in s) return JSON.stringify(s.const);
  if (s.type === 'array' && isSchema(s.items) && depth < 2) return `array of ${typeOf(s.items, depth + 1)}`;
  if (typeof s.type === 'string') return s.type;
  if (Array.isArray(s.type)) return s.type.join(' | ');
  const union = s.anyOf ?? s.oneOf;
  if (Array.isArray(union) && depth < 2) {
    return [...new Set(union.map((u) => (isSchema(u) ? typeOf(u, depth + 1) : 'any')))].join(' | ');
  }
  if (typeof s.$ref === 'string') return s.$ref.split('/').pop() || 'object';
  if (isSchema(s.properties)) return 'object';
  return 'any';
}

function rangeOf(s: Schema): string | undefined {
  const min = typeof s.minimum === 'number' ? s.minimum : undefined;
  const max = typeof s.maximum === 'number' ? s.maximum : undefined;
  if (min !== undefined && max !== undefined) return `${min}..${max}`;
  if (min !== undefined) return `>= ${min}`;
  if (max !== undefined) return `<= ${max}`;
  return undefined;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
