// pi-mcp-adapter's sign-ins read by our store: its encrypted files (with its key) and its legacy
// plaintext files, bound to server name and URL, converted to our record, never written, redacted.
// The files are made here in its format; test/e2e/adapter-sign-in.test.ts has its own code write them.

import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createTokenStore, storeKey } from '../../../src/auth/token-store.ts';
import { SecretValues } from '../../../src/redact/index.ts';

const URL_A = 'https://mcp.example.com/mcp';
let dir: string;
let agentDir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'adapter-sign-ins-'));
  agentDir = join(dir, 'agent');
  mkdirSync(agentDir);
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const account = (name: string) => `sha256-${createHash('sha256').update(name).digest('hex')}`;

function entry(access: string, serverUrl = URL_A, client: Record<string, unknown> = {}) {
  return {
    tokens: { accessToken: access, refreshToken: `rt-${access}`, expiresAt: 2_000_000_000, scope: 'mcp' },
    clientInfo: { clientId: 'client-1', clientSecret: `secret-${access}`, redirectUris: ['x'], ...client },
    serverUrl,
  };
}

function writeEncrypted(name: string, payload: unknown, key: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(`pi-mcp-adapter.oauth.encrypted-file.v1\0${account(name)}`, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]);
  const folder = join(agentDir, 'mcp-oauth-encrypted', account(name));
  mkdirSync(folder, { recursive: true });
  const file = join(folder, 'credentials.json');
  writeFileSync(
    file,
    JSON.stringify({
      version: 1,
      algorithm: 'aes-256-gcm',
      iv: iv.toString('base64'),
      ciphertext: ciphertext.toString('base64'),
      tag: cipher.getAuthTag().toString('base64'),
    }),
    { mode: 0o600 },
  );
  return file;
}

function writeLegacy(base: string, name: string, payload: unknown): string {
  const folder = join(base, account(name));
  mkdirSync(folder, { recursive: true });
  const file = join(folder, 'tokens.json');
  writeFileSync(file, JSON.stringify(payload));
  return file;
}

const store = (env: Record<string, string> = {}) =>
  createTokenStore({ agentDir, piAuthFile: false, adapterSignIns: { agentDir, env } });

describe("pi-mcp-adapter's sign-ins", () => {
  it('reads its encrypted file with its key: tokens, refresh token, client, expiry in ms', () => {
    const key = randomBytes(32);
    writeEncrypted('linear', entry('at-enc-1'), key);
    const record = store({ PI_MCP_ADAPTER_OAUTH_FILE_KEY: key.toString('base64') }).get('linear', URL_A);
    expect(record).toMatchObject({
      name: 'linear',
      url: URL_A,
      source: 'pi-mcp-adapter',
      tokens: { access_token: 'at-enc-1', token_type: 'Bearer', refresh_token: 'rt-at-enc-1', scope: 'mcp' },
      tokensExpireAt: 2_000_000_000_000,
      clientInformation: { client_id: 'client-1', client_secret: 'secret-at-enc-1', redirect_uris: ['x'] },
    });
  });

  it('reads nothing without the key, with another key, for another URL or another name', () => {
    const key = randomBytes(32);
    writeEncrypted('linear', entry('at-enc-2'), key);
    expect(store().get('linear', URL_A)).toBeUndefined();
    expect(
      store({ PI_MCP_ADAPTER_OAUTH_FILE_KEY: randomBytes(32).toString('base64') }).get('linear', URL_A),
    ).toBeUndefined();
    const right = store({ PI_MCP_ADAPTER_OAUTH_FILE_KEY: key.toString('base64') });
    expect(right.get('linear', 'https://other.example.com/mcp')).toBeUndefined();
    expect(right.get('github', URL_A)).toBeUndefined();
    // A key that is not canonical base64 of 32 bytes is not theirs.
    expect(store({ PI_MCP_ADAPTER_OAUTH_FILE_KEY: 'c2hvcnQ=' }).get('linear', URL_A)).toBeUndefined();
  });

  it('reads the legacy plaintext file: default dir, settings.oauthDir, MCP_OAUTH_DIR first', () => {
    writeLegacy(join(agentDir, 'mcp-oauth'), 'linear', entry('at-default'));
    expect(store().get('linear', URL_A)?.tokens?.access_token).toBe('at-default');

    const configured = join(dir, 'project', '.pi', 'mcp-oauth');
    writeLegacy(configured, 'linear', entry('at-configured'));
    const configuredStore = store();
    configuredStore.useAdapterSignInSettings({ oauthDir: configured });
    expect(configuredStore.get('linear', URL_A)?.tokens?.access_token).toBe('at-configured');
    // The settings belong to the store they were given to.
    expect(store().get('linear', URL_A)?.tokens?.access_token).toBe('at-default');

    const override = join(dir, 'override');
    writeLegacy(override, 'linear', entry('at-override'));
    expect(store({ MCP_OAUTH_DIR: override }).get('linear', URL_A)?.tokens?.access_token).toBe('at-override');
  });

  it('an entry without its URL (older versions) or a config pre-registered client stub is not taken as is', () => {
    writeLegacy(join(agentDir, 'mcp-oauth'), 'old', { tokens: { accessToken: 'at-old' } });
    expect(store().get('old', URL_A)).toBeUndefined();
    writeLegacy(
      join(agentDir, 'mcp-oauth'),
      'pre',
      entry('at-pre', URL_A, { configPreRegistered: true, clientSecret: undefined }),
    );
    const record = store().get('pre', URL_A);
    expect(record?.tokens?.access_token).toBe('at-pre');
    expect(record?.clientInformation).toBeUndefined();
  });

  it('our own sign-in wins; a refresh is saved to ours and their file stays as it was', async () => {
    const key = randomBytes(32);
    const file = writeEncrypted('linear', entry('at-theirs'), key);
    const before = readFileSync(file, 'utf8');
    const ours = store({ PI_MCP_ADAPTER_OAUTH_FILE_KEY: key.toString('base64') });
    await ours.update('linear', URL_A, (current) => ({
      ...current!,
      tokens: { access_token: 'at-refreshed', token_type: 'Bearer', refresh_token: 'rt-new' },
    }));
    expect(readFileSync(file, 'utf8')).toBe(before);
    const saved = JSON.parse(readFileSync(join(agentDir, 'mcp-oauth.json'), 'utf8')).servers[
      storeKey('linear', URL_A)
    ];
    expect(saved.tokens.access_token).toBe('at-refreshed');
    // The client registration came along; the record is ours now (no `source`).
    expect(saved.clientInformation.client_id).toBe('client-1');
    expect(saved.source).toBeUndefined();
    expect(ours.get('linear', URL_A)?.tokens?.access_token).toBe('at-refreshed');
  });

  it('signing out here stops using their sign-in (their file stays); a new sign-in here is used', async () => {
    const file = writeLegacy(join(agentDir, 'mcp-oauth'), 'linear', entry('at-out'));
    const before = readFileSync(file, 'utf8');
    const ours = store();
    expect(await ours.remove('linear', URL_A)).toBe(true);
    expect(ours.get('linear', URL_A)?.tokens).toBeUndefined();
    expect(readFileSync(file, 'utf8')).toBe(before);
    await ours.update('linear', URL_A, (current) => ({
      ...current!,
      tokens: { access_token: 'at-new-here', token_type: 'Bearer' },
    }));
    expect(ours.get('linear', URL_A)?.tokens?.access_token).toBe('at-new-here');
  });

  it('every token, client secret and the file key read are redacted from then on', () => {
    const key = randomBytes(32);
    writeEncrypted('linear', entry('tok-enc-redact-1'), key);
    const encoded = key.toString('base64');
    const secrets = new SecretValues();
    const signIns = store({ PI_MCP_ADAPTER_OAUTH_FILE_KEY: encoded });
    signIns.shareSecrets(secrets);
    signIns.get('linear', URL_A);
    const text = `a tok-enc-redact-1 b rt-tok-enc-redact-1 c secret-tok-enc-redact-1 d ${encoded}`;
    expect(secrets.redact(text)).toBe('a *** b *** c *** d ***');
  });

  it('a user of its OS keyring store is told why to sign in once more (pi-mcp-adapter in Pi packages)', () => {
    expect(store().signInElsewhere?.('linear')).toBeUndefined();
    writeFileSync(join(agentDir, 'settings.json'), JSON.stringify({ packages: ['npm:pi-mcp-adapter'] }));
    expect(store().signInElsewhere?.('linear')).toMatch(
      /"linear" made with pi-mcp-adapter stays in the OS keyring, which pi-mcp-actors cannot read/,
    );
    // Its encrypted-file store is read instead: nothing to say.
    const encryptedFileStore = store();
    encryptedFileStore.useAdapterSignInSettings({ oauthCredentialStore: 'encrypted-file' });
    expect(encryptedFileStore.signInElsewhere?.('linear')).toBeUndefined();
  });

  it('an encrypted sign-in the key of this environment does not open is named, with what to do', () => {
    writeEncrypted('linear', entry('at-locked'), randomBytes(32));
    const locked = store({ PI_MCP_ADAPTER_OAUTH_FILE_KEY: randomBytes(32).toString('base64') });
    expect(locked.get('linear', URL_A)).toBeUndefined();
    expect(locked.signInElsewhere?.('linear')).toBe(
      'pi-mcp-adapter\'s encrypted sign-in to "linear" cannot be opened with the PI_MCP_ADAPTER_OAUTH_FILE_KEY of this environment (unset or another key): set the key it was saved with, or sign in here once more',
    );
  });

  it("wakes a watcher when pi-mcp-adapter's file for its server appears", async () => {
    const watching = store();
    // Our own file exists, so only a watch on theirs can notice.
    await watching.update('other', URL_A, () => ({ name: 'other', url: URL_A }));
    let woken = 0;
    const stop = watching.watch('linear', URL_A, () => woken++);
    try {
      writeLegacy(join(agentDir, 'mcp-oauth'), 'linear', entry('at-late'));
      await vi.waitFor(() => expect(woken).toBe(1), { timeout: 10_000, interval: 100 });
    } finally {
      stop();
    }
  });
});
