// The config checker (src/config/json-schema.ts) agrees with TypeBox 1.x, the validator Pi itself uses,
// on every key of every config schema: the same verdict, and a failing place at least as deep as the
// deepest TypeBox reports (which locates the message; TypeBox stops early inside some objects).

import { Compile } from '@sinclair/typebox/compile';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PathSegment } from '../../../src/config/json-path.ts';
import { mismatchPath, type Schema, Type } from '../../../src/config/json-schema.ts';
import {
  CaptureStatsSchema,
  FileSchema,
  OAuthSchema,
  propertiesOf,
  ServerSchema,
  SettingsSchema,
  TraceSettingsSchema,
} from '../../../src/config/schema.ts';

const JUNK = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 1.5, '', 'x', [], {}),
  fc.jsonValue({ maxDepth: 2 }),
);

/** Values shaped by the schema, right and nearly right, mixed with junk. */
function valuesFor(schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  const near: fc.Arbitrary<unknown>[] = [];
  if (schema.anyOf) near.push(...schema.anyOf.map((option) => valuesFor(option, depth)));
  if (schema.enum) near.push(fc.constantFrom(...schema.enum, 'not-a-choice'));
  if ('const' in schema) near.push(fc.constant(schema.const));
  switch (schema.type) {
    case 'string':
      near.push(fc.string({ maxLength: 6 }), fc.constantFrom('', 'A_1', '1bad', 'é'));
      break;
    case 'number':
    case 'integer': {
      const edges = [schema.minimum, schema.maximum, schema.exclusiveMinimum]
        .filter((n): n is number => n !== undefined)
        .flatMap((n) => [n - 1, n - 0.5, n, n + 0.5, n + 1]);
      near.push(fc.constantFrom(0, 1, -1, 2.5, ...edges), fc.integer(), fc.double({ noNaN: true }));
      break;
    }
    case 'boolean':
      near.push(fc.boolean(), fc.constantFrom('true', 0));
      break;
    case 'array':
      if (schema.items && depth < 4)
        near.push(fc.array(valuesFor(schema.items, depth + 1), { maxLength: 3 }));
      break;
    case 'object':
      if (depth < 4) near.push(objectsFor(schema, depth));
      break;
  }
  return fc.oneof({ arbitrary: JUNK, weight: 1 }, ...near.map((arbitrary) => ({ arbitrary, weight: 3 })));
}

function objectsFor(schema: Schema, depth: number): fc.Arbitrary<unknown> {
  const known = Object.entries(schema.properties ?? {}).map(([key, value]) =>
    fc.option(valuesFor(value, depth + 1), { nil: undefined }).map((v) => [key, v] as const),
  );
  const values = Object.values(schema.patternProperties ?? {})[0];
  const extra = fc.dictionary(
    fc.constantFrom('extra', 'KEY', 'x y'),
    values ? valuesFor(values, depth + 1) : JUNK,
    { maxKeys: 2 },
  );
  return fc.tuple(fc.tuple(...known), extra).map(([pairs, more]) => ({
    ...Object.fromEntries(pairs.filter(([, v]) => v !== undefined)),
    ...more,
  }));
}

function typeboxDeepest(schema: Schema, value: unknown): PathSegment[] | undefined {
  const validator = Compile(schema as never);
  if (validator.Check(value)) return undefined;
  let deepest: string[] = [];
  for (const error of validator.Errors(value)) {
    const segments = error.instancePath === '' ? [] : error.instancePath.slice(1).split('/');
    if (segments.length > deepest.length) deepest = segments;
  }
  return deepest
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

function hasSlashKey(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasSlashKey);
  if (typeof value !== 'object' || value === null) return false;
  return Object.entries(value).some(([key, item]) => key.includes('/') || hasSlashKey(item));
}

const SCHEMAS: Record<string, Schema> = {
  server: ServerSchema,
  oauth: OAuthSchema,
  settings: SettingsSchema,
  trace: TraceSettingsSchema,
  captureStats: CaptureStatsSchema,
  file: FileSchema,
};

describe('the config checker agrees with TypeBox', () => {
  for (const [section, schema] of Object.entries(SCHEMAS)) {
    for (const [key, property] of Object.entries(propertiesOf(schema))) {
      it(`${section}.${key}`, () => {
        fc.assert(
          fc.property(valuesFor(property), (value) => {
            const ours = mismatchPath(property, value);
            const theirs = typeboxDeepest(property, value);
            expect(ours === undefined, JSON.stringify(value)).toBe(theirs === undefined);
            // TypeBox does not escape "/" in its paths, so such keys cannot be compared.
            if (ours && theirs && !hasSlashKey(value))
              expect(ours.length, JSON.stringify(value)).toBeGreaterThanOrEqual(theirs.length);
          }),
          { numRuns: 300 },
        );
      });
    }
  }

  it('builds what TypeBox builds', async () => {
    const { Type: TB } = await import('@sinclair/typebox');
    const plain = (schema: unknown) => JSON.parse(JSON.stringify(schema));
    const cases: Array<[Schema, unknown]> = [
      [Type.String({ minLength: 1 }), TB.String({ minLength: 1 })],
      [Type.Integer({ minimum: 0, maximum: 9 }), TB.Integer({ minimum: 0, maximum: 9 })],
      [Type.Literal(false), TB.Literal(false)],
      [Type.Enum(['a', 'b']), TB.Enum(['a', 'b'])],
      [Type.Record(Type.String(), Type.Boolean()), TB.Record(TB.String(), TB.Boolean())],
      [
        Type.Union([Type.Boolean(), Type.Array(Type.String())]),
        TB.Union([TB.Boolean(), TB.Array(TB.String())]),
      ],
      [
        Type.Object({ a: Type.String(), b: Type.Optional(Type.Number()) }, { additionalProperties: false }),
        TB.Object({ a: TB.String(), b: TB.Optional(TB.Number()) }, { additionalProperties: false }),
      ],
      [Type.Unknown({ description: 'd' }), TB.Unknown({ description: 'd' })],
    ];
    for (const [ours, theirs] of cases) expect(plain(ours)).toEqual(plain(theirs));
  });
});
