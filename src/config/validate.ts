// Checks one value against its TypeBox schema and, when it fails, says where and what was expected in
// words a user understands. Values are echoed only where they cannot be secrets (enum choices).

import type { TSchema } from '@sinclair/typebox';
import { Compile, type Validator } from '@sinclair/typebox/compile';
import { type PathSegment, pointerSegments } from './json-path.ts';
import { describeType, isPlainObject } from './parse.ts';
import { node, type SchemaNode } from './schema.ts';
import { didYouMean } from './suggest.ts';

export interface ValueProblem {
  /** Relative to the validated value. */
  path: PathSegment[];
  message: string;
  fix?: string;
}

// Compiled once per schema (TypeBox falls back to its interpreter where code generation is not
// allowed); the same TypeBox 1.x validates here and inside Pi.
const validators = new WeakMap<TSchema, Validator>();

function validatorFor(schema: TSchema): Validator {
  let validator = validators.get(schema);
  if (validator === undefined) {
    validator = Compile(schema) as Validator;
    validators.set(schema, validator);
  }
  return validator;
}

export function checkValue(schema: TSchema, value: unknown): ValueProblem | undefined {
  const validator = validatorFor(schema);
  if (validator.Check(value)) return undefined;
  let deepest: PathSegment[] = [];
  for (const error of validator.Errors(value)) {
    const segments = pointerSegments(error.instancePath);
    if (segments.length > deepest.length) deepest = segments;
  }
  const found = locate(node(schema), value, deepest);
  return explain(found.schema, found.value, found.path);
}

function locate(
  root: SchemaNode,
  rootValue: unknown,
  segments: PathSegment[],
): { schema: SchemaNode; value: unknown; path: PathSegment[] } {
  let schema = root;
  let value = rootValue;
  const path: PathSegment[] = [];
  for (const segment of segments) {
    const branch = branchFor(schema, value);
    let next: SchemaNode | undefined;
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
function branchFor(schema: SchemaNode, value: unknown): SchemaNode {
  if (schema.anyOf === undefined) return schema;
  const wanted = Array.isArray(value) ? 'array' : isPlainObject(value) ? 'object' : undefined;
  return schema.anyOf.find((option) => option.type === wanted) ?? schema;
}

function explain(schema: SchemaNode, value: unknown, path: PathSegment[]): ValueProblem {
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

function enumChoices(schema: SchemaNode): string[] | undefined {
  const direct = schema.enum?.filter((item): item is string => typeof item === 'string');
  if (direct !== undefined && direct.length > 0) return direct;
  const nested = (schema.anyOf ?? []).flatMap((option) => enumChoices(option) ?? []);
  return nested.length > 0 ? nested : undefined;
}

function accepts(schema: SchemaNode, type: string): boolean {
  if (schema.anyOf !== undefined) return schema.anyOf.some((option) => accepts(option, type));
  return schema.type === type || (type === 'number' && schema.type === 'integer');
}

function quotedScalarFix(schema: SchemaNode, value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if ((text === 'true' || text === 'false') && accepts(schema, 'boolean'))
    return `Write ${text} without quotes.`;
  if (/^-?\d+(\.\d+)?$/.test(text) && accepts(schema, 'number')) return `Write ${text} without quotes.`;
  if (accepts(schema, 'array') && !accepts(schema, 'string')) return 'Write a list: ["…", "…"].';
  return undefined;
}

/** "one of "lazy", "eager"", "true or false", "a list of strings", ... */
export function describeSchema(schema: SchemaNode): string {
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

function bounds(schema: SchemaNode): string {
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
export function isStringish(schema: SchemaNode): boolean {
  const types = (schema.anyOf ?? []).map((option) => option.type).sort();
  return types.join() === 'boolean,number,string';
}
