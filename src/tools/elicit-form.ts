// Elicitation forms, host-agnostic: the fields of a requested schema (the flat subset MCP allows:
// string, number, integer, boolean, single- and multi-select enums), parsing what the user typed, and
// validating a value against its field.

import type { JsonSchema } from '../ports/mcp.ts';

export interface FormOption {
  value: string;
  label: string;
}

export interface FormField {
  name: string;
  label: string;
  description?: string;
  kind: 'string' | 'number' | 'integer' | 'boolean' | 'enum' | 'multi';
  required: boolean;
  default?: unknown;
  options?: FormOption[];
  schema: JsonSchema;
}

export function formFields(schema: JsonSchema): FormField[] {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return Object.entries(properties).map(([name, prop]) => {
    const options = optionsOf(prop);
    const type = prop.type;
    const kind: FormField['kind'] =
      type === 'array'
        ? 'multi'
        : options
          ? 'enum'
          : type === 'boolean' || type === 'number' || type === 'integer'
            ? type
            : 'string';
    const field: FormField = {
      name,
      label: typeof prop.title === 'string' ? prop.title : name,
      kind,
      required: required.has(name),
      schema: prop,
    };
    if (typeof prop.description === 'string') field.description = prop.description;
    if (prop.default !== undefined) field.default = prop.default;
    const all = kind === 'multi' ? optionsOf((prop.items ?? {}) as JsonSchema) : options;
    if (all) field.options = all;
    return field;
  });
}

function optionsOf(schema: JsonSchema): FormOption[] | undefined {
  if (Array.isArray(schema.enum)) {
    const names = Array.isArray(schema.enumNames) ? (schema.enumNames as string[]) : [];
    return (schema.enum as unknown[]).map((v, i) => ({ value: String(v), label: names[i] ?? String(v) }));
  }
  const choices = (schema.oneOf ?? schema.anyOf) as JsonSchema[] | undefined;
  if (Array.isArray(choices) && choices.every((c) => c && c.const !== undefined)) {
    return choices.map((c) => ({
      value: String(c.const),
      label: typeof c.title === 'string' ? c.title : String(c.const),
    }));
  }
  return undefined;
}

export type Parsed = { ok: true; value: unknown } | { ok: false; error: string };

/** What the user typed for a free-text field (string, number, integer, multi-select as a list). */
export function parseTyped(field: FormField, text: string): Parsed {
  const trimmed = text.trim();
  if (field.kind === 'number' || field.kind === 'integer') {
    const n = Number(trimmed);
    if (trimmed === '' || !Number.isFinite(n)) return { ok: false, error: `"${text}" is not a number` };
    return checkField(field, n);
  }
  if (field.kind === 'multi') {
    const picked = trimmed
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map((s) => {
        const typed = s.toLowerCase();
        return (
          field.options?.find((o) => o.label.toLowerCase() === typed || o.value.toLowerCase() === typed)
            ?.value ?? s
        );
      });
    return checkField(field, picked);
  }
  return checkField(field, text);
}

const FORMATS: Record<string, RegExp> = {
  email: /^[^\s@]+@[^\s@]+\.[^\s@]+$/,
  date: /^\d{4}-\d{2}-\d{2}$/,
  'date-time': /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/,
};

const FORMAT_EXAMPLES: Record<string, string> = {
  date: ' (YYYY-MM-DD)',
  'date-time': ' (YYYY-MM-DDTHH:MM:SSZ)',
};

/** A date or date-time whose month, day and time exist (1815-13-45 does not). */
function realDate(format: string, value: string): boolean {
  if (format !== 'date' && format !== 'date-time') return true;
  const [year, month, day] = value.slice(0, 10).split('-').map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day)
    return false;
  return format === 'date' || !Number.isNaN(Date.parse(value));
}

/** What a field accepts, said before the user answers: range, length, format, default. */
export function fieldHint(field: FormField): string {
  const s = field.schema;
  const num = (key: string) => (typeof s[key] === 'number' ? (s[key] as number) : undefined);
  const parts: string[] = [];
  if (field.kind === 'number' || field.kind === 'integer') {
    const min = num('minimum');
    const max = num('maximum');
    const what = field.kind === 'integer' ? 'a whole number' : 'a number';
    if (min !== undefined && max !== undefined) parts.push(`${what} from ${min} to ${max}`);
    else if (min !== undefined) parts.push(`${what}, at least ${min}`);
    else if (max !== undefined) parts.push(`${what}, at most ${max}`);
  }
  if (field.kind === 'string') {
    const min = num('minLength');
    const max = num('maxLength');
    if (min !== undefined && max !== undefined) parts.push(`${min}–${max} characters`);
    else if (min !== undefined) parts.push(`at least ${min} characters`);
    else if (max !== undefined) parts.push(`at most ${max} characters`);
    const format = typeof s.format === 'string' ? s.format : undefined;
    if (format) parts.push(`${format}${FORMAT_EXAMPLES[format] ?? ''}`);
  }
  if (field.kind === 'multi') {
    const min = num('minItems');
    const max = num('maxItems');
    if (min !== undefined) parts.push(`at least ${min}`);
    if (max !== undefined) parts.push(`at most ${max}`);
  }
  if (field.default !== undefined && field.kind !== 'boolean' && field.kind !== 'enum') {
    const label = (v: unknown) => field.options?.find((o) => o.value === String(v))?.label ?? String(v);
    parts.push(
      `default: ${Array.isArray(field.default) ? field.default.map(label).join(', ') : label(field.default)}`,
    );
  }
  return parts.join('; ');
}

/** Validates one value against its field's schema; the error says what is expected. */
export function checkField(field: FormField, value: unknown): Parsed {
  const s = field.schema;
  const num = (key: string) => (typeof s[key] === 'number' ? (s[key] as number) : undefined);
  switch (field.kind) {
    case 'boolean':
      return typeof value === 'boolean' ? { ok: true, value } : { ok: false, error: 'expected yes or no' };
    case 'number':
    case 'integer': {
      if (typeof value !== 'number' || !Number.isFinite(value))
        return { ok: false, error: 'expected a number' };
      if (field.kind === 'integer' && !Number.isInteger(value))
        return { ok: false, error: 'expected a whole number' };
      const min = num('minimum');
      const max = num('maximum');
      if (min !== undefined && value < min) return { ok: false, error: `must be at least ${min}` };
      if (max !== undefined && value > max) return { ok: false, error: `must be at most ${max}` };
      return { ok: true, value };
    }
    case 'enum':
      return field.options?.some((o) => o.value === value)
        ? { ok: true, value }
        : { ok: false, error: `expected one of ${field.options?.map((o) => o.label).join(', ')}` };
    case 'multi': {
      if (!Array.isArray(value)) return { ok: false, error: 'expected a list' };
      const unknown = value.filter((v) => !field.options?.some((o) => o.value === v));
      if (unknown.length > 0)
        return {
          ok: false,
          error: `unknown choice ${unknown.join(', ')}; choose from ${field.options?.map((o) => o.label).join(', ')}`,
        };
      const min = num('minItems');
      const max = num('maxItems');
      if (min !== undefined && value.length < min) return { ok: false, error: `choose at least ${min}` };
      if (max !== undefined && value.length > max) return { ok: false, error: `choose at most ${max}` };
      return { ok: true, value };
    }
    default: {
      if (typeof value !== 'string') return { ok: false, error: 'expected text' };
      const min = num('minLength');
      const max = num('maxLength');
      if (min !== undefined && value.length < min) return { ok: false, error: `at least ${min} characters` };
      if (max !== undefined && value.length > max) return { ok: false, error: `at most ${max} characters` };
      const format = typeof s.format === 'string' ? s.format : undefined;
      if (format === 'uri' && !isUrl(value)) return { ok: false, error: 'expected a URL' };
      if (format && FORMATS[format] && !(FORMATS[format].test(value) && realDate(format, value)))
        return { ok: false, error: `expected a valid ${format}${FORMAT_EXAMPLES[format] ?? ''}` };
      if (typeof s.pattern === 'string' && !safeRegExp(s.pattern)?.test(value))
        return { ok: false, error: `must match ${s.pattern}` };
      return { ok: true, value };
    }
  }
}

/** Schema defaults for the fields the user left out (the SDK applies them too; we answer complete). */
export function withDefaults(fields: FormField[], content: Record<string, unknown>): Record<string, unknown> {
  const out = { ...content };
  for (const f of fields) if (out[f.name] === undefined && f.default !== undefined) out[f.name] = f.default;
  return out;
}

/** Every required field present and every value valid: undefined, or the first problem. */
export function formProblem(fields: FormField[], content: Record<string, unknown>): string | undefined {
  for (const f of fields) {
    const value = content[f.name];
    if (value === undefined) {
      if (f.required) return `${f.label}: required`;
      continue;
    }
    const checked = checkField(f, value);
    if (!checked.ok) return `${f.label}: ${checked.error}`;
  }
  return undefined;
}

function isUrl(text: string): boolean {
  try {
    new URL(text);
    return true;
  } catch {
    return false;
  }
}

function safeRegExp(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern, 'u');
  } catch {
    return undefined;
  }
}
