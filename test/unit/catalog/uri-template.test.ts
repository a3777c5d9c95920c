// RFC 6570 expansion as resource templates use it; the expected strings are the RFC's own examples.

import { describe, expect, it } from 'vitest';
import { expandUriTemplate, templateVariables } from '../../../src/catalog/uri-template.ts';

const values = {
  var: 'value',
  hello: 'Hello World!',
  path: '/foo/bar',
  empty: '',
  x: '1024',
  y: '768',
  list: ['red', 'green', 'blue'],
  emptyList: [],
  half: '50%',
  who: 'fred',
  base: 'http://example.com/home/',
  v: '6',
};

const cases: Array<[string, string]> = [
  // Level 1: simple strings, every reserved character encoded.
  ['{var}', 'value'],
  ['{hello}', 'Hello%20World%21'],
  ['{half}', '50%25'],
  ['{path}', '%2Ffoo%2Fbar'],
  // Level 2: reserved (+) and fragment (#) keep reserved characters.
  ['{+var}', 'value'],
  ['{+hello}', 'Hello%20World!'],
  ['{+path}/here', '/foo/bar/here'],
  ['{+half}', '50%25'],
  ['{+base}index', 'http://example.com/home/index'],
  ['{#var}', '#value'],
  ['{#hello}', '#Hello%20World!'],
  ['X{#path}', 'X#/foo/bar'],
  // Level 3: several variables, every operator.
  ['map?{x,y}', 'map?1024,768'],
  ['{x,hello,y}', '1024,Hello%20World%21,768'],
  ['{+x,hello,y}', '1024,Hello%20World!,768'],
  ['{#x,hello,y}', '#1024,Hello%20World!,768'],
  ['X{.var}', 'X.value'],
  ['X{.x,y}', 'X.1024.768'],
  ['{/var}', '/value'],
  ['{/var,x}/here', '/value/1024/here'],
  ['{/path}', '/%2Ffoo%2Fbar'],
  ['{;x,y}', ';x=1024;y=768'],
  ['{;x,y,empty}', ';x=1024;y=768;empty'],
  ['{?x,y}', '?x=1024&y=768'],
  ['{?x,y,empty}', '?x=1024&y=768&empty='],
  ['?fixed=yes{&x}', '?fixed=yes&x=1024'],
  ['{&x,y,empty}', '&x=1024&y=768&empty='],
  ['{?hello}', '?hello=Hello%20World%21'],
  // Level 4: prefixes and lists.
  ['{var:3}', 'val'],
  ['{+path:6}/here', '/foo/b/here'],
  ['{list}', 'red,green,blue'],
  ['{list*}', 'red,green,blue'],
  ['{/list*}', '/red/green/blue'],
  ['{;list*}', ';list=red;list=green;list=blue'],
  ['{?list}', '?list=red,green,blue'],
  ['{?list*}', '?list=red&list=green&list=blue'],
  ['{.who,who}', '.fred.fred'],
];

describe('expandUriTemplate', () => {
  it.each(cases)('%s → %s', (template, expected) => {
    expect(expandUriTemplate(template, values)).toBe(expected);
  });

  it('leaves out variables without a value, and whole expressions when none has one', () => {
    expect(expandUriTemplate('demo://search{?q,limit}', { q: 'pi' })).toBe('demo://search?q=pi');
    expect(expandUriTemplate('demo://search{?q,limit}', {})).toBe('demo://search');
    expect(expandUriTemplate('{;missing,x}', { x: '1' })).toBe(';x=1');
    expect(expandUriTemplate('X{.missing}{/emptyList}', { emptyList: [] })).toBe('X');
    expect(expandUriTemplate('{/a,b}', { b: 'z' })).toBe('/z');
  });

  it('encodes non-ASCII as UTF-8 percent triplets, and unsafe literal characters', () => {
    expect(expandUriTemplate('{v}', { v: 'café ☕' })).toBe('caf%C3%A9%20%E2%98%95');
    expect(expandUriTemplate('{+v}', { v: 'a b/ü' })).toBe('a%20b/%C3%BC');
    expect(expandUriTemplate('demo://a b/{v}', { v: 'x' })).toBe('demo://a%20b/x');
  });

  it('writes numbers and booleans as text and ignores values of other types', () => {
    expect(expandUriTemplate('demo://item/{id}{?all}', { id: 42, all: true })).toBe(
      'demo://item/42?all=true',
    );
    expect(expandUriTemplate('demo://item/{id}', { id: { nested: 1 } })).toBe('demo://item/');
  });

  it('keeps a malformed or unclosed expression as literal text', () => {
    expect(expandUriTemplate('a{b', { b: 'x' })).toBe('a%7Bb');
    expect(expandUriTemplate('a{!b}c', { b: 'x' })).toBe('a%7B!b%7Dc');
  });
});

describe('templateVariables', () => {
  it('lists every variable once, required unless it sits in a ? or & query part', () => {
    expect(templateVariables('demo://resource/dynamic/text/{resourceId}')).toEqual([
      { name: 'resourceId', required: true },
    ]);
    expect(templateVariables('repo://{owner}/{+path}{#frag}{?ref,depth}{&page}')).toEqual([
      { name: 'owner', required: true },
      { name: 'path', required: true },
      { name: 'frag', required: true },
      { name: 'ref', required: false },
      { name: 'depth', required: false },
      { name: 'page', required: false },
    ]);
    expect(templateVariables('{x:3}/{x}{?x}{;list*}{.ext}')).toEqual([
      { name: 'x', required: true },
      { name: 'list', required: true },
      { name: 'ext', required: true },
    ]);
  });

  it('a variable that is optional in the query but required elsewhere is required', () => {
    expect(templateVariables('{?id}/{id}')).toEqual([{ name: 'id', required: true }]);
  });

  it('finds nothing in a plain URI', () => {
    expect(templateVariables('demo://static')).toEqual([]);
  });
});
