// biome-ignore-all lint/suspicious/noTemplateCurlyInString: config text with ${VAR} references.
import { describe, expect, it } from 'vitest';
import type { ServerDefinition } from '../../src/config/types.ts';
import {
  argSecrets,
  OUR_DATA,
  REDACTED,
  SecretValues,
  secretsOfDefinition,
  redactData as walk,
} from '../../src/redact/index.ts';
import { definition } from '../support/config.ts';
import { loadMemory, USER_FILE } from './config/helpers.ts';

// One runtime's known secrets for the whole file (as a session's grow).
const secrets = new SecretValues();
const addSecrets = (values: Iterable<unknown>) => secrets.add(values);
const addServerSecrets = (defs: ServerDefinition[]) => secrets.addDefinitions(defs);
const redact = (text: string, extra?: readonly string[]) => secrets.redact(text, extra);
const redactKnown = (text: string) => secrets.redactKnown(text);
const redactDeep = <T>(value: T) => secrets.redactDeep(value);
const redactKnownDeep = <T>(value: T) => secrets.redactKnownDeep(value);
const redactData = (value: unknown) => walk(value, { ...OUR_DATA, text: (text) => secrets.redact(text) });

const secretive: ServerDefinition = definition({
  name: 'svc',
  transport: 'stdio',
  command: 'npx',
  args: ['-y', 'server', '--api-key=sk-live-123456', '--token', 'tok-abcdef', '--port', '8080'],
  env: {
    GITHUB_TOKEN: 'ghp_secret_value',
    DEBUG: 'true',
    LOG_LEVEL: 'info',
    HOME_DIR: '/home/me/project',
    MODE: 'readonly',
    OPAQUE: 'q8Zr2nVx0pLw',
  },
  headers: { Authorization: 'Bearer bearer-header-token', 'X-Team': 'team-1234' },
  url: 'https://user:hunter2pw@mcp.example.com/sse?apiKey=query-secret-1&region=eu',
  bearerToken: 'static-bearer-1',
  auth: 'bearer',
  oauth: { grantType: 'client_credentials', clientId: 'client-id-1', clientSecret: 'client-secret-1' },
});

describe('secretsOfDefinition', () => {
  it("includes the identity provider's client secret of an enterprise-managed sign-in", () => {
    const enterprise = definition({
      transport: 'http',
      url: 'https://mcp.example.com/mcp',
      auth: 'oauth',
      oauth: {
        grantType: 'jwt-bearer',
        identityToken: { env: 'ID_TOKEN' },
        tokenExchange: {
          tokenEndpoint: 'https://idp.example.com/token',
          clientId: 'c',
          clientSecret: 'idp-secret-9',
        },
      },
    });
    expect(secretsOfDefinition(enterprise)).toContain('idp-secret-9');
  });

  it('lists every secret string, without harmless env values (flags, levels, paths, words)', () => {
    expect(secretsOfDefinition(secretive).sort()).toEqual(
      [
        'ghp_secret_value',
        'q8Zr2nVx0pLw',
        'Bearer bearer-header-token',
        'bearer-header-token',
        'team-1234',
        'static-bearer-1',
        'client-secret-1',
        'hunter2pw',
        'query-secret-1',
        'sk-live-123456',
        'tok-abcdef',
      ].sort(),
    );
  });
});

describe('a definition shown as data (log fields, inspector events)', () => {
  it('hides env and header values, tokens, client secrets, URL credentials and secret args; keeps names', () => {
    addServerSecrets([secretive]);
    const shown = redactData(secretive) as Record<string, unknown>;
    expect(shown.env).toEqual(Object.fromEntries(Object.keys(secretive.env).map((name) => [name, REDACTED])));
    expect(shown.headers).toEqual({ Authorization: REDACTED, 'X-Team': REDACTED });
    expect(shown.bearerToken).toBe(REDACTED);
    expect(shown.oauth).toEqual({
      grantType: 'client_credentials',
      clientId: 'client-id-1',
      clientSecret: REDACTED,
    });
    expect(shown.args).toEqual([
      '-y',
      'server',
      `--api-key=${REDACTED}`,
      '--token',
      REDACTED,
      '--port',
      '8080',
    ]);
    const text = JSON.stringify(shown);
    for (const secret of secretsOfDefinition(secretive)) expect(text).not.toContain(secret);
    expect(JSON.stringify(secretive)).toContain('hunter2pw');
  });
});

describe('argSecrets', () => {
  it('takes the value after a secret-named option even when it starts with a dash, but not the next option', () => {
    expect(argSecrets(['--token', '-IsUNVmJKR4l', '--api-key', '-_x9Zq', '--secret', '--verbose'])).toEqual([
      '-IsUNVmJKR4l',
      '-_x9Zq',
    ]);
    expect(argSecrets(['--password', '-v', '--token', '--port', '80'])).toEqual([]);
  });

  it('so the value is hidden wherever it is quoted, as in an argv array', () => {
    addSecrets(argSecrets(['--token', '-Qw7rTzLp0aXc']));
    expect(redact(JSON.stringify({ args: ['--token', '-Qw7rTzLp0aXc'] }))).toBe('{"args":["--token","***"]}');
  });
});

describe('redact', () => {
  it('replaces every occurrence of the secrets it is given, longest first', () => {
    expect(redact('a=abcdef b=abcdefgh c=abcdef', ['abcdef', 'abcdefgh'])).toBe('a=*** b=*** c=***');
  });

  it('replaces secrets added to the process-wide set, in their JSON and URL spellings too', () => {
    addSecrets(['pw"with\\quotes/and space']);
    const json = JSON.stringify({ message: 'failed with pw"with\\quotes/and space' });
    expect(redact(json)).toBe('{"message":"failed with ***"}');
    expect(redact(`?p=${encodeURIComponent('pw"with\\quotes/and space')}`)).toBe('?p=***');
  });

  it('leaves values too short to be secrets alone', () => {
    expect(redact('on port 123 with abc', ['123', 'abc', ''])).toBe('on port 123 with abc');
  });

  it.each([
    ['Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.x1', 'Authorization: Bearer ***'],
    ['token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9.c2lnbmF0dXJlMQ done', 'token *** done'],
    ['key sk-live-4f9a8b7c6d5e4f3a2b1c0d', 'key ***'],
    ['used sk-ant-api03-AbCdEf123456 here', 'used *** here'],
    ['pat ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'pat ***'],
    ['pat github_pat_11ABCDEFG0123456789_abcdefghij', 'pat ***'],
    ['slack xoxb-123456789012-abcdefABCDEF', 'slack ***'],
    ['aws AKIAIOSFODNN7EXAMPLE.', 'aws ***.'],
    ['postgres://admin:s3cr3t@db.local/app', 'postgres://admin:***@db.local/app'],
    ['GET /x?access_token=abc123&page=2', 'GET /x?access_token=***&page=2'],
    ['run --api-key abc123xyz', 'run --api-key ***'],
    ['API_TOKEN=9f8e7d6c5b4a39281706f5e4', 'API_TOKEN=***'],
    ['{"secret": "c2VjcmV0LXZhbHVlLTEyMzQ1Njc4"}', '{"secret": "***"}'],
  ])('hides token-shaped text: %s', (input, expected) => {
    expect(redact(input)).toBe(expected);
  });

  it.each([
    'Token expired at 12:00; sign in again',
    'Bearer authentication failed',
    'the key is missing',
    'task-1234567890abcdef done',
    'see https://example.com/docs?page=2',
    'secret: none',
  ])('leaves ordinary text alone: %s', (input) => {
    expect(redact(input)).toBe(input);
  });
});

describe('redactDeep', () => {
  it('redacts every string of JSON-like data and keeps keys, numbers and shape', () => {
    addSecrets(['deep-secret-value-1']);
    const value = { token: 'x', list: ['a deep-secret-value-1 b', 3, null], nested: { ok: true } };
    expect(redactDeep(value)).toEqual({
      token: 'x',
      list: [`a ${REDACTED} b`, 3, null],
      nested: { ok: true },
    });
    expect(value.list[0]).toBe('a deep-secret-value-1 b');
  });
});

describe('redact answers repeated texts from memory', () => {
  it('a secret learnt after a text was redacted is hidden the next time that text goes out', () => {
    const text = 'session learnt-later-9f2c is open';
    expect(redact(text)).toBe(text);
    expect(redact(text)).toBe(text);
    addSecrets(['learnt-later-9f2c']);
    expect(redact(text)).toBe(`session ${REDACTED} is open`);
  });
});

describe('secretsOfDefinition with a private_key_jwt key', () => {
  it('lists the PEM key whole and each of its base64 lines, not the BEGIN/END lines', () => {
    const pem =
      '-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqG\nSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----\n';
    const def = definition({
      name: 'machine',
      transport: 'http',
      url: 'https://mcp.example.com/mcp',
      auth: 'oauth',
      oauth: { grantType: 'client_credentials', clientId: 'client-id-1', privateKey: pem },
    });
    const secrets = secretsOfDefinition(def);
    expect(secrets).toEqual(
      expect.arrayContaining([pem, 'MIGHAgEAMBMGByqGSM49AgEGCCqG', 'SM49AwEHBG0wawIBAQQg']),
    );
    expect(secrets.some((s) => s.startsWith('-----BEGIN') && !s.includes('\n'))).toBe(false);
  });
});

describe('redactKnown: a server data keeps its shape', () => {
  it('leaves token-shaped data alone (a link with ?code=, a Bearer word) and still removes a known secret', () => {
    addSecrets(['known-result-secret-77']);
    const data =
      'Open https://example.com/verify?code=abc123 — Bearer abcdefghijklmnop1 known-result-secret-77';
    expect(redactKnown(data)).toBe(
      `Open https://example.com/verify?code=abc123 — Bearer abcdefghijklmnop1 ${REDACTED}`,
    );
    expect(redactKnownDeep({ text: data })).toEqual({ text: redactKnown(data) });
    // Our own diagnostic text is still masked by shape.
    expect(redact(data)).toContain('?code=***');
  });
});

describe('secrets we used to miss', () => {
  it('a short value under a name that says password or token is a secret (DB_PASSWORD: "hunter")', () => {
    const def = definition({ env: { DB_PASSWORD: 'hunter', API_TOKEN: 'abcd1', PASSWORD_FILE: '/run/pw' } });
    expect(secretsOfDefinition(def)).toEqual(expect.arrayContaining(['hunter', 'abcd1']));
    expect(secretsOfDefinition(def)).not.toContain('/run/pw');
  });

  it('under a secret name only a sure path is not a secret: a key may start with a dot', () => {
    const def = definition({
      env: {
        SERVICE_API_KEY: '.eOhasOwnPropertyZK',
        API_KEY_FILE: './keys/api',
        TOKEN_DIR: '~/tokens',
        SECRET_PATH: '../secret.txt',
      },
    });
    expect(secretsOfDefinition(def)).toEqual(['.eOhasOwnPropertyZK']);
  });

  it('a ${VAR} put into a URL path or a positional argument is a secret; a path or a word is not', () => {
    const config = loadMemory(
      {
        [USER_FILE]: JSON.stringify({
          mcpServers: {
            remote: { url: 'https://mcp.example.com/${GITHUB_TOKEN}/mcp' },
            local: { command: 'server', args: ['${DB_PASSWORD}', '${OPAQUE}', '${HOME}/data', '${REGION}'] },
          },
        }),
      },
      {
        env: {
          GITHUB_TOKEN: 'gh-path-token-1',
          DB_PASSWORD: 'hunter',
          OPAQUE: 'q8Zr2nVx0pLw',
          HOME: '/home/u',
          REGION: 'europe',
        },
      },
    );
    const secrets = config.servers.flatMap(secretsOfDefinition);
    expect(secrets).toEqual(expect.arrayContaining(['gh-path-token-1', 'hunter', 'q8Zr2nVx0pLw']));
    expect(secrets).not.toContain('/home/u');
    expect(secrets).not.toContain('europe');
    // Once the redaction knows the values, a definition shown as data (log, inspector) carries none.
    addServerSecrets(config.servers);
    const shown = JSON.stringify(redactData(config.servers));
    expect(redact(shown)).not.toMatch(/gh-path-token-1|hunter|q8Zr2nVx0pLw/);
    expect(redact(shown)).toContain('/home/u/data');
  });
});
