import { describe, expect, it } from 'vitest';
import { redactDefinition } from '../../../src/config/redact.ts';
import type { ServerDefinition } from '../../../src/config/types.ts';
import { REDACTED, secretsOfDefinition } from '../../../src/redact.ts';
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
    for (const secret of secretsOfDefinition(secretive)) expect(text).not.toContain(secret);
  });

  it('does not change the definition it was given', () => {
    const before = JSON.stringify(secretive);
    redactDefinition(secretive);
    expect(JSON.stringify(secretive)).toBe(before);
  });
});
