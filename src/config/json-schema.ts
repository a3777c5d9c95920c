// The config schema's building blocks and its checker: plain JSON Schema objects built with the same
// names TypeBox uses (the subset src/config/schema.ts needs), and a check that finds the deepest
// mismatch. TypeBox itself stays off Pi's start path (its import and schema building cost more than
// the whole config read); test/unit/config/json-schema.test.ts holds both to TypeBox's verdicts.

import type { PathSegment } from './json-path.ts';

export interface Schema {
  type?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
  patternProperties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  pattern?: string;
  description?: string;
  default?: unknown;
  'x-default'?: string;
}

/** Annotations and constraints a builder takes besides the shape. */
export type Options = Omit<Schema, 'type' | 'anyOf' | 'items' | 'properties' | 'patternProperties'>;

const optionalSchemas = new WeakSet<Schema>();

export const Type = {
  String: (options: Options = {}): Schema => ({ type: 'string', ...options }),
  Number: (options: Options = {}): Schema => ({ type: 'number', ...options }),
  Integer: (options: Options = {}): Schema => ({ type: 'integer', ...options }),
  Boolean: (options: Options = {}): Schema => ({ type: 'boolean', ...options }),
  Unknown: (options: Options = {}): Schema => ({ ...options }),
  Literal: (value: string | number | boolean, options: Options = {}): Schema => ({
    type: typeof value,
    const: value,
    ...options,
  }),
  Enum: (values: readonly unknown[], options: Options = {}): Schema => ({ enum: [...values], ...options }),
  Union: (anyOf: Schema[], options: Options = {}): Schema => ({ anyOf, ...options }),
  Array: (items: Schema, options: Options = {}): Schema => ({ type: 'array', items, ...options }),
  /** An object whose every key (any string) holds `values`. */
  Record: (_keys: Schema, values: Schema, options: Options = {}): Schema => ({
    type: 'object',
    patternProperties: { '^.*$': values },
    ...options,
  }),
  Object: (properties: Record<string, Schema>, options: Options = {}): Schema => {
    const required = Object.keys(properties).filter((key) => !optionalSchemas.has(properties[key]!));
    return { type: 'object', properties, ...(required.length > 0 ? { required } : {}), ...options };
  },
  /** A property that may be left out of its object. */
  Optional: (schema: Schema): Schema => {
    const copy = { ...schema };
    optionalSchemas.add(copy);
    return copy;
  },
};

/**
 * Where `value` first fails `schema`: the deepest failing path (the first of equally deep ones),
 * relative to the value; undefined when it conforms.
 */
export function mismatchPath(
  schema: Schema,
  value: unknown,
  path: PathSegment[] = [],
): PathSegment[] | undefined {
  if (schema.anyOf !== undefined) {
    let deepest: PathSegment[] | undefined;
    for (const option of schema.anyOf) {
      const found = mismatchPath(option, value, path);
      if (found === undefined) return undefined;
      if (deepest === undefined || found.length > deepest.length) deepest = found;
    }
    return deepest;
  }
  if (schema.enum !== undefined && !schema.enum.includes(value)) return path;
  if ('const' in schema && value !== schema.const) return path;
  if (schema.type !== undefined && !hasType(schema.type, value)) return path;
  if (typeof value === 'number' && !withinBounds(schema, value)) return path;
  if (typeof value === 'string' && !stringFits(schema, value)) return path;
  if (Array.isArray(value) && schema.items !== undefined) {
    return deepestOf(value.map((item, index) => () => mismatchPath(schema.items!, item, [...path, index])));
  }
  if (isObject(value) && schema.type === 'object') return objectMismatch(schema, value, path);
  return undefined;
}

function objectMismatch(schema: Schema, value: Record<string, unknown>, path: PathSegment[]) {
  const checks: Array<() => PathSegment[] | undefined> = [];
  if (schema.required?.some((key) => !Object.hasOwn(value, key))) checks.push(() => path);
  for (const [key, item] of Object.entries(value)) {
    const known = schema.properties !== undefined && Object.hasOwn(schema.properties, key);
    if (known) checks.push(() => mismatchPath(schema.properties![key]!, item, [...path, key]));
    for (const [pattern, values] of Object.entries(schema.patternProperties ?? {})) {
      if (regex(pattern).test(key)) checks.push(() => mismatchPath(values, item, [...path, key]));
    }
    if (!known && schema.additionalProperties === false && schema.patternProperties === undefined) {
      checks.push(() => [...path, key]);
    }
  }
  return deepestOf(checks);
}

function deepestOf(checks: Array<() => PathSegment[] | undefined>): PathSegment[] | undefined {
  let deepest: PathSegment[] | undefined;
  for (const check of checks) {
    const found = check();
    if (found !== undefined && (deepest === undefined || found.length > deepest.length)) deepest = found;
  }
  return deepest;
}

function hasType(type: string, value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isObject(value);
    case 'null':
      return value === null;
    default:
      return false;
  }
}

function withinBounds(schema: Schema, value: number): boolean {
  if (schema.minimum !== undefined && value < schema.minimum) return false;
  if (schema.maximum !== undefined && value > schema.maximum) return false;
  return schema.exclusiveMinimum === undefined || value > schema.exclusiveMinimum;
}

function stringFits(schema: Schema, value: string): boolean {
  if (schema.minLength !== undefined && [...value].length < schema.minLength) return false;
  return schema.pattern === undefined || regex(schema.pattern).test(value);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const regexes = new Map<string, RegExp>();

function regex(pattern: string): RegExp {
  let compiled = regexes.get(pattern);
  if (compiled === undefined) {
    compiled = new RegExp(pattern, 'u');
    regexes.set(pattern, compiled);
  }
  return compiled;
}
