// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are config text with ${VAR} references.
// The private_key_jwt keys of the `oauth` block: interpolated, paths resolved, enough for client_credentials.

import { describe, expect, it } from 'vitest';
import { loadMemory, USER_FILE } from './helpers.ts';

const PEM = '-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqG\n-----END PRIVATE KEY-----\n';

function load(oauth: Record<string, unknown>) {
  const text = JSON.stringify({ mcpServers: { m: { url: 'https://mcp.example.com/mcp', oauth } } });
  return loadMemory({ [USER_FILE]: text }, { env: { MY_CLIENT_KEY: PEM } });
}

describe('oauth private key', () => {
  it('interpolates privateKey and keeps the signing algorithm; no client secret needed', () => {
    const config = load({
      grantType: 'client_credentials',
      clientId: 'machine',
      privateKey: '${MY_CLIENT_KEY}',
      signingAlgorithm: 'ES256',
    });
    const server = config.servers.find((s) => s.name === 'm');
    expect(server?.oauth).toMatchObject({ privateKey: PEM, signingAlgorithm: 'ES256', clientId: 'machine' });
    expect(config.diagnostics.filter((d) => d.level === 'error')).toEqual([]);
  });

  it('resolves privateKeyFile against the working directory and ~', () => {
    const relative = load({ grantType: 'client_credentials', clientId: 'c', privateKeyFile: 'keys/c.pem' });
    expect(relative.servers[0]?.oauth?.privateKeyFile).toBe('/work/app/keys/c.pem');
    const home = load({ grantType: 'client_credentials', clientId: 'c', privateKeyFile: '~/c.pem' });
    expect(home.servers[0]?.oauth?.privateKeyFile).toBe('/home/u/c.pem');
  });

  it('client_credentials without a secret or a key is an error naming both', () => {
    const config = load({ grantType: 'client_credentials', clientId: 'c' });
    const error = config.diagnostics.find((d) => d.level === 'error');
    expect(error?.message).toContain('oauth.clientSecret (or oauth.privateKey / oauth.privateKeyFile)');
  });
});
