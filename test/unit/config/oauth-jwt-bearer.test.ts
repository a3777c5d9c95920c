// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are config text with ${VAR} references.
// The `oauth` keys of workload identity federation and enterprise-managed authorization (jwt-bearer,
// identityToken, tokenExchange) and DPoP (dpop).

import { describe, expect, it } from 'vitest';
import { loadMemory, USER_FILE } from './helpers.ts';

function load(oauth: Record<string, unknown>) {
  const text = JSON.stringify({ mcpServers: { m: { url: 'https://mcp.example.com/mcp', oauth } } });
  return loadMemory({ [USER_FILE]: text }, { env: { IDP_SECRET: 'idp-secret-value' } });
}

const errors = (config: ReturnType<typeof load>) => config.diagnostics.filter((d) => d.level === 'error');

describe('oauth jwt-bearer and dpop', () => {
  it('workload identity: jwt-bearer with the identity token from a file (resolved like cwd)', () => {
    const config = load({ grantType: 'jwt-bearer', clientId: 'w', identityToken: { file: 'tokens/mcp' } });
    expect(config.servers[0]?.oauth).toMatchObject({
      grantType: 'jwt-bearer',
      clientId: 'w',
      identityToken: { file: '/work/app/tokens/mcp' },
    });
    expect(errors(config)).toEqual([]);
  });

  it('enterprise-managed: a command for the ID token and the exchange at the IdP, its secret interpolated', () => {
    const config = load({
      grantType: 'jwt-bearer',
      clientId: 'c',
      clientSecret: 's',
      identityToken: { command: ['idp-cli', 'id-token'] },
      tokenExchange: {
        tokenEndpoint: 'https://idp.example.com/token',
        clientId: 'idp-c',
        clientSecret: '${IDP_SECRET}',
      },
    });
    expect(config.servers[0]?.oauth).toMatchObject({
      identityToken: { command: ['idp-cli', 'id-token'] },
      tokenExchange: {
        tokenEndpoint: 'https://idp.example.com/token',
        clientId: 'idp-c',
        clientSecret: 'idp-secret-value',
      },
    });
    expect(errors(config)).toEqual([]);
  });

  it('jwt-bearer without exactly one identity token source is an error', () => {
    expect(errors(load({ grantType: 'jwt-bearer' }))[0]?.message).toContain(
      'needs oauth.identityToken with exactly one of env, file or command',
    );
    expect(errors(load({ grantType: 'jwt-bearer', identityToken: { env: 'A', file: '/b' } }))).toHaveLength(
      1,
    );
  });

  it('dpop: true and "required" are kept; the keys are known (no unknown-key warning)', () => {
    for (const dpop of [true, 'required'] as const) {
      const config = load({ dpop });
      expect(config.servers[0]?.oauth?.dpop).toBe(dpop);
      expect(config.diagnostics.filter((d) => d.code === 'unknown-key')).toEqual([]);
    }
    expect(load({ dpop: false }).servers[0]?.oauth?.dpop).toBeUndefined();
  });
});
