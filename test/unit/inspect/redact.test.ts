import { describe, expect, it } from 'vitest';
import { redactInspectionEvent } from '../../../src/inspect/redact-event.ts';
import {
  createRedactor,
  describeConnection,
  REDACTED,
  SecretValues,
  secretsOfDefinition,
} from '../../../src/redact/index.ts';
import { createFakeConnection } from '../../fixtures/inspect/scripted-connector.ts';
import { SECRET_VALUES, SECRETS, secretServerDefinition } from '../../fixtures/inspect/secret-config.ts';

const none = createRedactor(new SecretValues(), () => []);

describe('createRedactor', () => {
  it('hides values under secret-looking keys, at any depth', () => {
    const out = none.value({
      a: { bearerToken: 'x1', nested: [{ accessToken: 'x2', refresh_token: 'x3' }] },
      password: 'x4',
      clientSecret: 'x5',
      Authorization: 'x6',
      apiKey: 'x7',
      tokens: { access_token: 'x8' },
      keep: 'visible',
    });
    expect(out).toEqual({
      a: { bearerToken: REDACTED, nested: [{ accessToken: REDACTED, refresh_token: REDACTED }] },
      password: REDACTED,
      clientSecret: REDACTED,
      Authorization: REDACTED,
      apiKey: REDACTED,
      tokens: REDACTED,
      keep: 'visible',
    });
  });

  it('keeps env and header names but hides their values', () => {
    expect(none.value({ env: { HOME: '/home/u', GITHUB_TOKEN: 'g' }, headers: { 'X-Key': 'k' } })).toEqual({
      env: { HOME: REDACTED, GITHUB_TOKEN: REDACTED },
      headers: { 'X-Key': REDACTED },
    });
  });

  it('replaces every known secret inside any string, longest first', () => {
    const redactor = createRedactor(new SecretValues(), () => ['abcd', 'abcdefgh']);
    expect(redactor.value({ message: 'failed with abcdefgh and abcd', list: ['xabcdx'] })).toEqual({
      message: `failed with ${REDACTED} and ${REDACTED}`,
      list: [`x${REDACTED}x`],
    });
  });

  it('hides short secrets only where a whole string equals them', () => {
    const redactor = createRedactor(new SecretValues(), () => ['1', 'ab']);
    expect(redactor.value({ a: '1', b: 'v1.2', c: 'ab', d: 'tab' })).toEqual({
      a: REDACTED,
      b: 'v1.2',
      c: REDACTED,
      d: 'tab',
    });
  });

  it('hides credential-shaped text it was not told about', () => {
    expect(none.text('Authorization: Bearer abc.def-123')).toBe(`Authorization: Bearer ${REDACTED}`);
    expect(none.text('https://user:pa55@host/x?api_key=zzz&x=1')).toBe(
      `https://user:${REDACTED}@host/x?api_key=${REDACTED}&x=1`,
    );
    expect(none.text('node s.js --api-key=QQQ --token WWW')).toBe(
      `node s.js --api-key=${REDACTED} --token ${REDACTED}`,
    );
  });

  it('turns errors into name and message, redacted', () => {
    const error = Object.assign(new Error('denied for s3cr3t-value'), {
      kind: 'auth',
      stderrTail: 'token s3cr3t-value',
    });
    expect(createRedactor(new SecretValues(), () => ['s3cr3t-value']).value({ error })).toEqual({
      error: {
        name: 'Error',
        message: `denied for ${REDACTED}`,
        kind: 'auth',
        stderrTail: `token ${REDACTED}`,
      },
    });
  });

  it('describes a live connection instead of serialising it, under any key', () => {
    const connection = createFakeConnection();
    expect(none.value({ connection, output: connection })).toEqual({
      connection: '[connection stdio, pid 4242, 1 tools]',
      output: '[connection stdio, pid 4242, 1 tools]',
    });
    expect(describeConnection(null)).toBe('[connection]');
  });

  it('returns plain JSON data: no functions, cycles cut, toJSON honoured', () => {
    const cyclic: Record<string, unknown> = { name: 'a', fn: () => 1, at: new Date(0), big: 10n };
    cyclic.self = cyclic;
    expect(none.value(cyclic)).toEqual({
      name: 'a',
      at: '1970-01-01T00:00:00.000Z',
      big: '10',
      self: '[circular]',
    });
  });

  it('never throws when the secrets source does', () => {
    const redactor = createRedactor(new SecretValues(), () => {
      throw new Error('boom');
    });
    expect(redactor.value({ a: 'b' })).toEqual({ a: 'b' });
  });
});

describe('secretsOfDefinition', () => {
  it('collects env values, header values, bearer tokens and OAuth client secrets', () => {
    const secrets = secretsOfDefinition(secretServerDefinition());
    for (const value of SECRET_VALUES) expect(secrets).toContain(value);
  });
});

describe('redactInspectionEvent', () => {
  const redactor = createRedactor(new SecretValues(), () => [SECRETS.bearerToken, 'connect']);

  it('keeps the envelope, the state value and the event type readable', () => {
    const out = redactInspectionEvent(
      {
        type: '@xstate.snapshot',
        sessionId: 'x:1',
        rootId: 'x:0',
        snapshot: { value: { connected: 'idle' }, context: { lastError: `no ${SECRETS.bearerToken}` } },
        event: { type: 'xstate.done.actor.connect', output: { headers: { a: 'b' } } },
      },
      redactor,
    );
    expect(out).toEqual({
      type: '@xstate.snapshot',
      sessionId: 'x:1',
      rootId: 'x:0',
      snapshot: { value: { connected: 'idle' }, context: { lastError: `no ${REDACTED}` } },
      event: { type: 'xstate.done.actor.connect', output: { headers: { a: REDACTED } } },
    });
  });

  it('redacts the machine definition as data', () => {
    const definition = JSON.stringify({
      id: 'server',
      context: { bearerToken: 'zzz', note: SECRETS.bearerToken },
    });
    const out = redactInspectionEvent({ type: '@xstate.actor', definition }, redactor);
    expect(JSON.parse(out.definition as string)).toEqual({
      id: 'server',
      context: { bearerToken: REDACTED, note: REDACTED },
    });
  });
});
