// The sign-in store as plain file logic: one 0600 file, records per server name + URL, Pi's built-in
// mcp-auth.json read (never written), concurrent writers losing nothing, watchers woken by sign-ins.

import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTokenStore, storeKey } from '../../../src/auth/token-store.ts';
import { SecretValues } from '../../../src/redact/index.ts';

let dir: string;
const URL_A = 'https://mcp.example.com/mcp';
const tokens = (access: string) => ({
  access_token: access,
  token_type: 'Bearer',
  refresh_token: `r-${access}`,
});

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'token-store-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('token store', () => {
  it('writes one 0600 file keyed by server name and URL; the same URL under two names stays apart', async () => {
    const store = createTokenStore({ agentDir: dir });
    await store.update('work', URL_A, () => ({ name: 'work', url: URL_A, tokens: tokens('work-token-1') }));
    await store.update('home', URL_A, () => ({ name: 'home', url: URL_A, tokens: tokens('home-token-1') }));
    expect(statSync(store.file).mode & 0o777).toBe(0o600);
    const file = JSON.parse(readFileSync(store.file, 'utf8'));
    expect(Object.keys(file.servers).sort()).toEqual([storeKey('home', URL_A), storeKey('work', URL_A)]);
    expect(createTokenStore({ agentDir: dir }).get('work', URL_A)?.tokens?.access_token).toBe('work-token-1');
    expect(await store.remove('work', URL_A)).toBe(true);
    expect(store.get('work', URL_A)).toBeUndefined();
    expect(store.get('home', URL_A)?.tokens?.access_token).toBe('home-token-1');
  });

  it("a registered client's secret and registration access token are secrets once stored", async () => {
    const store = createTokenStore({ agentDir: dir });
    const secrets = new SecretValues();
    store.shareSecrets(secrets);
    await store.update('dcr', URL_A, () => ({
      name: 'dcr',
      url: URL_A,
      clientInformation: {
        client_id: 'client-dcr',
        client_secret: 'dcr-client-secret-1',
        registration_access_token: 'dcr-registration-token-1',
      },
    }));
    expect(secrets.redact('secret dcr-client-secret-1 and dcr-registration-token-1')).toBe(
      'secret *** and ***',
    );
  });

  it('its tokens go to the known secrets of the runtimes sharing it, until one stops sharing', async () => {
    const store = createTokenStore({ agentDir: dir });
    await store.update('work', URL_A, () => ({ name: 'work', url: URL_A, tokens: tokens('early-token-1') }));
    store.get('work', URL_A);
    const joinedLate = new SecretValues();
    const leaving = new SecretValues();
    const stopSharing = store.shareSecrets(leaving);
    store.shareSecrets(joinedLate);
    // What the store read before a runtime joined is known to it too.
    expect(joinedLate.redactKnown('early-token-1')).toBe('***');
    stopSharing();
    await store.update('work', URL_A, () => ({ name: 'work', url: URL_A, tokens: tokens('later-token-2') }));
    store.learnSecrets(['a-pkce-verifier-3']);
    expect(joinedLate.redactKnown('later-token-2 a-pkce-verifier-3')).toBe('*** ***');
    expect(leaving.redactKnown('later-token-2 a-pkce-verifier-3')).toBe('later-token-2 a-pkce-verifier-3');
    expect(new SecretValues().redactKnown('early-token-1')).toBe('early-token-1');
  });

  it('concurrent stores (as two processes would) lose no record', async () => {
    const a = createTokenStore({ agentDir: dir });
    const b = createTokenStore({ agentDir: dir });
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 ? a : b).update(`s${i}`, URL_A, () => ({
          name: `s${i}`,
          url: URL_A,
          tokens: tokens(`token-${i}`),
        })),
      ),
    );
    const servers = JSON.parse(readFileSync(a.file, 'utf8')).servers;
    expect(Object.keys(servers)).toHaveLength(10);
  });

  it("reads Pi's built-in sign-ins (name with - as _, or the legacy URL-only key) and never writes them", async () => {
    const piFile = join(dir, 'mcp-auth.json');
    const pi = {
      [`mcp__my_server|${URL_A}`]: { serverUrl: URL_A, tokens: tokens('pi-token-one'), tokensExpireAt: 123 },
      'https://legacy.example.com/mcp': {
        serverUrl: 'https://legacy.example.com/mcp',
        tokens: tokens('pi-token-two'),
      },
    };
    writeFileSync(piFile, JSON.stringify(pi));
    const store = createTokenStore({ agentDir: dir });
    const secrets = new SecretValues();
    store.shareSecrets(secrets);
    expect(store.get('my-server', URL_A)).toMatchObject({
      source: 'pi',
      tokensExpireAt: 123,
      tokens: { access_token: 'pi-token-one' },
    });
    expect(store.get('legacy', 'https://legacy.example.com/mcp')?.tokens?.access_token).toBe('pi-token-two');
    expect(store.get('other', URL_A)).toBeUndefined();
    // Tokens read are secrets from then on.
    expect(secrets.redact('the token is pi-token-one')).toBe('the token is ***');
    await store.update('my-server', URL_A, (current) => ({ ...current!, tokens: tokens('ours-now-1') }));
    expect(store.get('my-server', URL_A)).toMatchObject({ tokens: { access_token: 'ours-now-1' } });
    expect(store.get('my-server', URL_A)?.source).toBeUndefined();
    expect(JSON.parse(readFileSync(piFile, 'utf8'))).toEqual(pi);
  });

  it('wakes a watcher when tokens for its server appear in another store instance, not for other servers', async () => {
    const watching = createTokenStore({ agentDir: dir });
    const writer = createTokenStore({ agentDir: dir });
    let woken = 0;
    const woke = new Promise<void>((resolve) => {
      const stop = watching.watch('linear', URL_A, () => {
        woken++;
        stop();
        resolve();
      });
    });
    await writer.update('other', URL_A, () => ({ name: 'other', url: URL_A, tokens: tokens('other-token') }));
    await writer.update('linear', URL_A, () => ({
      name: 'linear',
      url: URL_A,
      tokens: tokens('linear-token'),
    }));
    await woke;
    expect(woken).toBe(1);
  });

  it('an unreadable file is reported and read as empty; the next sign-in replaces it', async () => {
    const warnings: string[] = [];
    writeFileSync(join(dir, 'mcp-oauth.json'), '{ not json');
    const store = createTokenStore({ agentDir: dir, onWarning: (m) => warnings.push(m) });
    expect(store.get('linear', URL_A)).toBeUndefined();
    expect(warnings[0]).toMatch(/mcp-oauth\.json is unreadable .*; sign in again\./);
    await store.update('linear', URL_A, () => ({
      name: 'linear',
      url: URL_A,
      tokens: tokens('fresh-token'),
    }));
    expect(store.get('linear', URL_A)?.tokens?.access_token).toBe('fresh-token');
  });
});
