import { describe, expect, it } from 'vitest';
import { REDACTED, redactDefinition, redactText, secretValues } from '../../../src/config/redact.ts';
import type { ServerDefinition } from '../../../src/config/types.ts';
import { definition as baseDefinition } from '../../support/config.ts';

function definition(overrides: Partial<ServerDefinition> = {}): ServerDefinition {
  return baseDefinition({ name: 'svc', transport: 'http', exposeResources: true, ...overrides });
}

const secretive = definition({
  transport: 'stdio',
  command: 'npx',
  args: ['-y', 'server', '--api-key=sk-live-123456', '--token', 'tok-abcdef', '--port', '8080'],
  env: { GITHUB_TOKEN: 'ghp_secret_value', DEBUG: 'true', LOG_LEVEL: 'info' },
  headers: { Authorization: 'Bearer bearer-header-token', 'X-Team': 'team-1234' },
  url: 'https://user:hunter2pw@mcp.example.com/sse?apiKey=query-secret-1&region=eu',
  bearerToken: 'static-bearer-1',
  auth: 'bearer',
  oauth: { grantType: 'client_credentials', clientId: 'client-id-1', clientSecret: 'client-secret-1' },
});

describe('redactDefinition', () => {
  it('masks env and header values, tokens, client secrets, URL credentials and secret args; keeps keys', () => {
    const shown = redactDefinition(secretive);
    expect(shown.env).toEqual({ GITHUB_TOKEN: REDACTED, DEBUG: REDACTED, LOG_LEVEL: REDACTED });
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
    expect(shown.url).toBe('https://user:***@mcp.example.com/sse?apiKey=***&region=eu');
    const text = JSON.stringify(shown);
    for (const secret of secretValues(secretive)) expect(text).not.toContain(secret);
  });

  it('does not change the definition it was given', () => {
    const before = JSON.stringify(secretive);
    redactDefinition(secretive);
    expect(JSON.stringify(secretive)).toBe(before);
  });
});

describe('secretValues', () => {
  it('lists every secret string, without obviously harmless env values', () => {
    expect(secretValues(secretive).sort()).toEqual(
      [
        'ghp_secret_value',
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

describe('redactText', () => {
  it('replaces every occurrence, longest secret first', () => {
    expect(redactText('a=abcdef b=abcdefgh c=abcdef', ['abcdef', 'abcdefgh'])).toBe('a=*** b=*** c=***');
  });

  it('removes Bearer tokens it was not told about', () => {
    expect(redactText('Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.x', [])).toBe('Authorization: Bearer ***');
  });

  it('leaves values too short to be secrets alone', () => {
    expect(redactText('on port 123 with abc', ['123', 'abc', ''])).toBe('on port 123 with abc');
  });
});
