import { describe, expect, it } from 'vitest';
import {
  checkField,
  formFields,
  formProblem,
  parseTyped,
  withDefaults,
} from '../../../src/tools/elicit-form.ts';

const schema = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', minLength: 2 },
    age: { type: 'integer', minimum: 0, maximum: 150, default: 30 },
    ratio: { type: 'number' },
    ok: { type: 'boolean', default: false },
    color: { type: 'string', enum: ['r', 'g'], enumNames: ['Red', 'Green'] },
    hero: { type: 'string', oneOf: [{ const: 'h1', title: 'Superman' }] },
    tags: { type: 'array', items: { anyOf: [{ const: 'a', title: 'Alpha' }, { const: 'b' }] }, maxItems: 1 },
    mail: { type: 'string', format: 'email' },
    day: { type: 'string', format: 'date' },
  },
  required: ['name'],
};

describe('elicitation forms', () => {
  const fields = formFields(schema);
  const field = (name: string) => fields.find((f) => f.name === name)!;

  it('reads the kinds, labels, options, defaults and required flags of the flat MCP subset', () => {
    expect(fields.map((f) => [f.name, f.kind, f.required])).toEqual([
      ['name', 'string', true],
      ['age', 'integer', false],
      ['ratio', 'number', false],
      ['ok', 'boolean', false],
      ['color', 'enum', false],
      ['hero', 'enum', false],
      ['tags', 'multi', false],
      ['mail', 'string', false],
      ['day', 'string', false],
    ]);
    expect(field('name').label).toBe('Name');
    expect(field('color').options).toEqual([
      { value: 'r', label: 'Red' },
      { value: 'g', label: 'Green' },
    ]);
    expect(field('tags').options).toEqual([
      { value: 'a', label: 'Alpha' },
      { value: 'b', label: 'b' },
    ]);
  });

  it('parses and checks typed answers, saying what is expected', () => {
    expect(parseTyped(field('age'), '42')).toEqual({ ok: true, value: 42 });
    expect(parseTyped(field('age'), '4.5')).toEqual({ ok: false, error: 'expected a whole number' });
    expect(parseTyped(field('age'), '200')).toEqual({ ok: false, error: 'must be at most 150' });
    expect(parseTyped(field('ratio'), 'abc')).toEqual({ ok: false, error: '"abc" is not a number' });
    expect(parseTyped(field('name'), 'A')).toEqual({ ok: false, error: 'at least 2 characters' });
    expect(parseTyped(field('mail'), 'x@y.z')).toEqual({ ok: true, value: 'x@y.z' });
    expect(parseTyped(field('mail'), 'nope')).toEqual({ ok: false, error: 'expected a valid email' });
    expect(parseTyped(field('day'), '2026-11-23')).toEqual({ ok: true, value: '2026-11-23' });
    expect(parseTyped(field('tags'), 'Alpha')).toEqual({ ok: true, value: ['a'] });
    expect(parseTyped(field('tags'), 'a, b')).toEqual({ ok: false, error: 'choose at most 1' });
    expect(checkField(field('color'), 'x').ok).toBe(false);
  });

  it('fills defaults for left-out fields and finds a missing required one', () => {
    expect(withDefaults(fields, { name: 'Ada' })).toEqual({ name: 'Ada', age: 30, ok: false });
    expect(formProblem(fields, { age: 3 })).toBe('Name: required');
    expect(formProblem(fields, { name: 'Ada', age: 3 })).toBeUndefined();
  });
});
