// Checks one value against its JSON schema (src/config/json-schema.ts) and, when it fails, says where
// and what was expected in words a user understands. Values are echoed only where they cannot be secrets (enum choices).

import { isPlainObject } from '../plain-object.ts';
import type { PathSegment } from './json-path.ts';
import { mismatchPath, type Schema } from './json-schema.ts';
import { describeType } from './parse.ts';
import { didYouMean } from './suggest.ts';

export interface ValueProblem {
  /** Relative to the validated value. */
  path: PathSegment[];
  message: string;
  fix?: string;
}

export function checkValue(schema: Schema, value: unknown): ValueProblem | undefined {
  const deepest = mismatchPath(schema, value);
  if (deepest === undefined) return undefined;
  const found = locate(schema, value, deepest);
  return explain(found.schema, found.value, found.path);
}

function locate(
  root: Schema,
  rootValue: unknown,
  segments: PathSegment[],
): { schema: Schema; value: unknown; path: PathSegment[] } {
  let schema = root;
  let value = rootValue;
  const path: PathSegment[] = [];
  for (const segment of segments) {
    const branch = branchFor(schema, value);
    let next: Schema | undefined;
    if (typeof segment === 'number' && Array.isArray(value)) {
      next = branch.items;
      value = value[segment];
    } else if (typeof segment === 'string' && isPlainObject(value)) {
      next = branch.properties?.[segment] ?? Object.values(branch.patternProperties ?? {})[0];
      value = value[segment];
    }
    if (next === undefined) break;
    schema = next;
    path.push(segment);
  }
  return { schema, value, path };
}

/** The union branch that has the value's shape (list or object), so nested errors describe the right one. */
function branchFor(schema: Schema, value: unknown): Schema {
  if (schema.anyOf === undefined) return schema;
  const wanted = Array.isArray(value) ? 'array' : isPlainObject(value) ? 'object' : undefined;
  return schema.anyOf.find((option) => option.type === wanted) ?? schema;
}

function explain(schema: Schema, value: unknown, path: PathSegment[]): ValueProblem {
  const expected = describeSchema(schema);
  const choices = enumChoices(schema);
  if (choices !== undefined && typeof value === 'string') {
    const fix = didYouMean(value, choices);
    return {
      path,
      message: `must be ${expected}, got ${JSON.stringify(value.slice(0, 60))}`,
      ...(fix === undefined ? {} : { fix }),
    };
  }
  const fix = quotedScalarFix(schema, value);
  return {
    path,
    message: `must be ${expected}, got ${describeType(value)}`,
    ...(fix === undefined ? {} : { fix }),
  };
}

function enumChoices(schema: Schema): string[] | undefined {
  const direct = schema.enum?.filter((item): item is string => typeof item === 'string');
  if (direct !== undefined && direct.length > 0) return direct;
  const nested = (schema.anyOf ?? []).flatMap((option) => enumChoices(option) ?? []);
  return nested.length > 0 ? nested : undefined;
}

function accepts(schema: Schema, type: string): boolean {
  if (schema.anyOf !== undefined) return schema.anyOf.some((option) => accepts(option, type));
  return schema.type === type || (type === 'number' && schema.type === 'integer');
}

function quotedScalarFix(schema: Schema, value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if ((text === 'true' || text === 'false') && accepts(schema, 'boolean'))
    return `Write ${text} without quotes.`;
  if (/^-?\d+(\.\d+)?$/.test(text) && accepts(schema, 'number')) return `Write ${text} without quotes.`;
  if (accepts(schema, 'array') && !accepts(schema, 'string')) return 'Write a list: ["…", "…"].';
  return undefined;
}

/** "one of "lazy", "eager"", "true or false", "a list of strings", ... */
export function describeSchema(schema: Schema): string {
  if (schema.anyOf !== undefined) {
    if (isStringish(schema)) return 'a string';
    return schema.anyOf.map(describeSchema).join(' or ');
  }
  if (schema.enum !== undefined) {
    return schema.enum.length === 1
      ? JSON.stringify(schema.enum[0])
      : `one of ${schema.enum.map((item) => JSON.stringify(item)).join(', ')}`;
  }
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  switch (schema.type) {
    case 'boolean':
      return 'true or false';
    case 'string':
      if (schema.pattern !== undefined) return 'an environment variable name';
      return schema.minLength !== undefined && schema.minLength > 0 ? 'a non-empty string' : 'a string';
    case 'number':
    case 'integer':
      return `${schema.type === 'integer' ? 'a whole number' : 'a number'}${bounds(schema)}`;
    case 'array':
      return schema.items === undefined ? 'a list' : `a list of ${plural(describeSchema(schema.items))}`;
    case 'object': {
      const values = Object.values(schema.patternProperties ?? {})[0];
      return values === undefined
        ? 'an object'
        : `an object whose values are ${plural(describeSchema(values))}`;
    }
    default:
      return 'a value';
  }
}

function bounds(schema: Schema): string {
  const parts: string[] = [];
  if (schema.exclusiveMinimum !== undefined) parts.push(`> ${schema.exclusiveMinimum}`);
  if (schema.minimum !== undefined) parts.push(`≥ ${schema.minimum}`);
  if (schema.maximum !== undefined) parts.push(`≤ ${schema.maximum}`);
  return parts.length === 0 ? '' : ` ${parts.join(' and ')}`;
}

function plural(description: string): string {
  if (description === 'a string') return 'strings';
  if (description === 'a non-empty string') return 'non-empty strings';
  return description;
}

/** string | number | boolean, which users mean as a string. */
export function isStringish(schema: Schema): boolean {
  const types = (schema.anyOf ?? []).map((option) => option.type).sort();
  return types.join() === 'boolean,number,string';
}
