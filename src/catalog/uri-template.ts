// RFC 6570 URI templates (levels 1–4, without associative arrays): the variables a resource template
// asks for, and the URI it expands to. Plain functions; nothing throws.

export type TemplateValue = string | number | boolean | ReadonlyArray<string | number | boolean>;

export interface TemplateVariable {
  name: string;
  /** False for variables of a `{?…}` or `{&…}` query part: leaving them out drops the parameter. */
  required: boolean;
}

interface VarSpec {
  name: string;
  explode: boolean;
  /** `{var:3}`: only the first 3 characters of the value. */
  prefix?: number;
}

type Part = string | { operator: Operator; vars: VarSpec[] };

interface Operator {
  first: string;
  separator: string;
  /** `;`, `?` and `&` write `name=value`. */
  named: boolean;
  /** What follows a named variable whose value is empty (`;x` but `?x=`). */
  ifEmpty: string;
  /** `+` and `#` keep reserved characters and existing %XX triplets. */
  allowReserved: boolean;
}

const OPERATORS: Record<string, Operator> = {
  '': { first: '', separator: ',', named: false, ifEmpty: '', allowReserved: false },
  '+': { first: '', separator: ',', named: false, ifEmpty: '', allowReserved: true },
  '#': { first: '#', separator: ',', named: false, ifEmpty: '', allowReserved: true },
  '.': { first: '.', separator: '.', named: false, ifEmpty: '', allowReserved: false },
  '/': { first: '/', separator: '/', named: false, ifEmpty: '', allowReserved: false },
  ';': { first: ';', separator: ';', named: true, ifEmpty: '', allowReserved: false },
  '?': { first: '?', separator: '&', named: true, ifEmpty: '=', allowReserved: false },
  '&': { first: '&', separator: '&', named: true, ifEmpty: '=', allowReserved: false },
};

const OPTIONAL_OPERATORS = new Set<Operator>([OPERATORS['?']!, OPERATORS['&']!]);

function parse(template: string): Part[] {
  const parts: Part[] = [];
  let rest = template;
  while (rest !== '') {
    const open = rest.indexOf('{');
    const close = open === -1 ? -1 : rest.indexOf('}', open);
    if (open === -1 || close === -1) {
      // No (complete) expression left: the rest is literal.
      parts.push(rest);
      break;
    }
    if (open > 0) parts.push(rest.slice(0, open));
    parts.push(parseExpression(rest.slice(open + 1, close)) ?? rest.slice(open, close + 1));
    rest = rest.slice(close + 1);
  }
  return parts;
}

function parseExpression(body: string): Part | undefined {
  const symbol = body.charAt(0);
  const operator = OPERATORS[symbol] ?? OPERATORS['']!;
  const list = symbol in OPERATORS && symbol !== '' ? body.slice(1) : body;
  const vars: VarSpec[] = [];
  for (const raw of list.split(',')) {
    const match = /^([A-Za-z0-9_.%]+)(?::([0-9]{1,4})|(\*))?$/.exec(raw.trim());
    if (!match) return undefined;
    const spec: VarSpec = { name: match[1]!, explode: match[3] === '*' };
    if (match[2] !== undefined) spec.prefix = Number(match[2]);
    vars.push(spec);
  }
  return { operator, vars };
}

/** The template's variables in order of first appearance; a name that appears twice is listed once. */
export function templateVariables(template: string): TemplateVariable[] {
  const byName = new Map<string, TemplateVariable>();
  for (const part of parse(template)) {
    if (typeof part === 'string') continue;
    const optional = OPTIONAL_OPERATORS.has(part.operator);
    for (const spec of part.vars) {
      const known = byName.get(spec.name);
      if (!known) byName.set(spec.name, { name: spec.name, required: !optional });
      else if (!optional) known.required = true;
    }
  }
  return [...byName.values()];
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;
const RESERVED = /[:/?#[\]@!$&'()*+,;=]/;

function encode(text: string, allowReserved: boolean): string {
  let out = '';
  for (let i = 0; i < text.length; ) {
    const ch = String.fromCodePoint(text.codePointAt(i)!);
    i += ch.length;
    if (UNRESERVED.test(ch)) out += ch;
    else if (allowReserved && RESERVED.test(ch)) out += ch;
    else if (allowReserved && ch === '%' && /^[0-9A-Fa-f]{2}$/.test(text.slice(i, i + 2))) out += ch;
    else
      for (const byte of Buffer.from(ch, 'utf8'))
        out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Literal text outside expressions: kept, except characters a URI cannot hold. */
function encodeLiteral(text: string): string {
  return encode(text, true);
}

function expandVar(spec: VarSpec, value: TemplateValue, op: Operator): string | undefined {
  const named = (text: string) =>
    op.named ? `${encode(spec.name, false)}${text === '' ? op.ifEmpty : `=${text}`}` : text;
  if (Array.isArray(value)) {
    const items = (value as ReadonlyArray<string | number | boolean>).map((item) =>
      encode(String(item), op.allowReserved),
    );
    if (items.length === 0) return undefined;
    if (!spec.explode) return named(items.join(','));
    return op.named ? items.map(named).join(op.separator) : items.join(op.separator);
  }
  let text = String(value);
  if (spec.prefix !== undefined) text = [...text].slice(0, spec.prefix).join('');
  return named(encode(text, op.allowReserved));
}

/** Expands the template with these values; a variable without a value (or an empty list) is left out. */
export function expandUriTemplate(template: string, values: Readonly<Record<string, unknown>>): string {
  let out = '';
  for (const part of parse(template)) {
    if (typeof part === 'string') {
      out += encodeLiteral(part);
      continue;
    }
    const expanded: string[] = [];
    for (const spec of part.vars) {
      const value = Object.hasOwn(values, spec.name) ? asTemplateValue(values[spec.name]) : undefined;
      if (value === undefined) continue;
      const text = expandVar(spec, value, part.operator);
      if (text !== undefined) expanded.push(text);
    }
    if (expanded.length > 0) out += part.operator.first + expanded.join(part.operator.separator);
  }
  return out;
}

function asTemplateValue(value: unknown): TemplateValue | undefined {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (Array.isArray(value)) {
    const items = value.filter(
      (item): item is string | number | boolean =>
        typeof item === 'string' || typeof item === 'number' || typeof item === 'boolean',
    );
    return items;
  }
  return undefined;
}
