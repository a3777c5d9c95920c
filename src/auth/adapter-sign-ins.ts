// pi-mcp-adapter's OAuth sign-ins, read (never written) so a user switching from it keeps them.
// It keeps one entry per server name (account `sha256-<hex of the name>`), bound to the server URL
// it was made for, in one of three places:
//   - the OS keyring (its default; service `pi-mcp-adapter.oauth`): a native module would be needed
//     to read it, so it is not read here; `unreadableSignInNote` says what to do instead;
//   - AES-256-GCM files `<agentDir>/mcp-oauth-encrypted/<account>/credentials.json`, keyed by the
//     environment variable PI_MCP_ADAPTER_OAUTH_FILE_KEY (`settings.oauthCredentialStore:
//     "encrypted-file"`);
//   - legacy plaintext `<dir>/<account>/tokens.json`, dir = $MCP_OAUTH_DIR, else `settings.oauthDir`,
//     else `<agentDir>/mcp-oauth` (it imports these into the keyring on first use and deletes them).
// Plain file logic: no SDK, no XState; nothing here throws. The store adds what it reads (and the
// file key) to the known secrets of the runtimes that share it.

import { createDecipheriv, createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { MAX_CONFIG_BYTES, readBounded } from '../config/read-file.ts';
import { isPlainObject as isRecord } from '../plain-object.ts';
import { normalizeUrl, type SignInRecord, type StoredTokens } from './sign-in-record.ts';

export const ADAPTER_FILE_KEY_ENV = 'PI_MCP_ADAPTER_OAUTH_FILE_KEY';
export const ADAPTER_OAUTH_DIR_ENV = 'MCP_OAUTH_DIR';
const ENCRYPTED_DIR = 'mcp-oauth-encrypted';
const LEGACY_DIR = 'mcp-oauth';
const AAD_CONTEXT = 'pi-mcp-adapter.oauth.encrypted-file.v1';

/** What a config says about pi-mcp-adapter's store (its `settings.oauthDir`, `oauthCredentialStore`). */
export interface AdapterSignInSettings {
  oauthDir?: string;
  oauthCredentialStore?: 'encrypted-file';
}

export interface AdapterSignInSource {
  agentDir: string;
  env: Record<string, string | undefined>;
  /** From the loaded config, through the token store (TokenStore.useAdapterSignInSettings). */
  settings?: AdapterSignInSettings;
}

export function adapterAccount(name: string): string {
  return `sha256-${createHash('sha256').update(name, 'utf8').digest('hex')}`;
}

export function encryptedFile(source: AdapterSignInSource, name: string): string {
  return join(source.agentDir, ENCRYPTED_DIR, adapterAccount(name), 'credentials.json');
}

export function legacyFile(source: AdapterSignInSource, name: string): string {
  const dir =
    source.env[ADAPTER_OAUTH_DIR_ENV]?.trim() ||
    source.settings?.oauthDir ||
    join(source.agentDir, LEGACY_DIR);
  return join(dir, adapterAccount(name), 'tokens.json');
}

/** The files a sign-in of theirs for `name` may appear in (for watching). */
export function adapterFiles(source: AdapterSignInSource, name: string): string[] {
  return [encryptedFile(source, name), legacyFile(source, name)];
}

/** Their sign-in for this server name and URL, as our record; undefined when none can be read. */
export function readAdapterSignIn(
  source: AdapterSignInSource,
  name: string,
  url: string,
  learnSecrets: (values: string[]) => void = () => {},
): SignInRecord | undefined {
  for (const entry of [readEncrypted(source, name, learnSecrets), readJson(legacyFile(source, name))]) {
    const record = toRecord(entry, name, url);
    if (record) return record;
  }
  return undefined;
}

/**
 * Why a server with no readable sign-in may still have one in pi-mcp-adapter: an encrypted file of
 * its that the key in this environment does not open, or its default store, the OS keyring (said
 * when pi-mcp-adapter is in Pi's packages and its encrypted-file store is not configured).
 */
export function unreadableSignInNote(source: AdapterSignInSource, name: string): string | undefined {
  if (fs.existsSync(encryptedFile(source, name))) {
    return (
      `pi-mcp-adapter's encrypted sign-in to "${name}" cannot be opened with the ${ADAPTER_FILE_KEY_ENV} ` +
      'of this environment (unset or another key): set the key it was saved with, or sign in here once more'
    );
  }
  if (source.settings?.oauthCredentialStore === 'encrypted-file' || !adapterInstalled(source))
    return undefined;
  return (
    `a sign-in to "${name}" made with pi-mcp-adapter stays in the OS keyring, which pi-mcp-actors ` +
    'cannot read (that needs a native module), so sign in here once more'
  );
}

function adapterInstalled(source: AdapterSignInSource): boolean {
  const settings = readJson(join(source.agentDir, 'settings.json'));
  const packages = isRecord(settings) && Array.isArray(settings.packages) ? settings.packages : [];
  return packages.some((entry) => {
    const spec = isRecord(entry) ? entry.source : entry;
    return typeof spec === 'string' && /(^|[:/@])pi-mcp-adapter(@|$)/.test(spec);
  });
}

function readEncrypted(
  source: AdapterSignInSource,
  name: string,
  learnSecrets: (values: string[]) => void,
): unknown {
  const encoded = source.env[ADAPTER_FILE_KEY_ENV];
  const key = fileKey(encoded);
  if (!key || encoded === undefined) return undefined;
  learnSecrets([encoded]);
  const envelope = readJson(encryptedFile(source, name));
  if (!isRecord(envelope) || envelope.version !== 1 || envelope.algorithm !== 'aes-256-gcm') return undefined;
  try {
    const iv = Buffer.from(String(envelope.iv), 'base64');
    const tag = Buffer.from(String(envelope.tag), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    decipher.setAAD(Buffer.from(`${AAD_CONTEXT}\0${adapterAccount(name)}`, 'utf8'));
    decipher.setAuthTag(tag);
    const plain = Buffer.concat([
      decipher.update(Buffer.from(String(envelope.ciphertext), 'base64')),
      decipher.final(),
    ]);
    return JSON.parse(plain.toString('utf8'));
  } catch {
    // Another key, a damaged file: nothing to import.
    return undefined;
  }
}

/** Their key: canonical base64 of exactly 32 bytes. */
function fileKey(encoded: string | undefined): Buffer | undefined {
  if (!encoded) return undefined;
  const key = Buffer.from(encoded, 'base64');
  if (key.length !== 32 || key.toString('base64') !== encoded) return undefined;
  return key;
}

function toRecord(entry: unknown, name: string, url: string): SignInRecord | undefined {
  if (!isRecord(entry) || typeof entry.serverUrl !== 'string') return undefined;
  // Bound to the URL it was made for, as pi-mcp-adapter binds it.
  if (normalizeUrl(entry.serverUrl) !== normalizeUrl(url)) return undefined;
  const tokens = entry.tokens;
  if (!isRecord(tokens) || typeof tokens.accessToken !== 'string') return undefined;
  const stored: StoredTokens = { access_token: tokens.accessToken, token_type: 'Bearer' };
  if (typeof tokens.refreshToken === 'string') stored.refresh_token = tokens.refreshToken;
  if (typeof tokens.scope === 'string') stored.scope = tokens.scope;
  if (typeof tokens.issuer === 'string') stored.issuer = tokens.issuer;
  const record: SignInRecord = { name, url: normalizeUrl(url), tokens: stored, source: 'pi-mcp-adapter' };
  // Theirs is epoch seconds; ours epoch ms.
  if (typeof tokens.expiresAt === 'number') record.tokensExpireAt = Math.round(tokens.expiresAt * 1000);
  const client = entry.clientInfo;
  // A stub for a client the config pre-registers carries no usable identity of its own.
  if (isRecord(client) && typeof client.clientId === 'string' && client.configPreRegistered !== true) {
    const information: Record<string, unknown> = { client_id: client.clientId };
    if (typeof client.clientSecret === 'string') information.client_secret = client.clientSecret;
    if (typeof client.clientIdIssuedAt === 'number')
      information.client_id_issued_at = client.clientIdIssuedAt;
    if (typeof client.clientSecretExpiresAt === 'number')
      information.client_secret_expires_at = client.clientSecretExpiresAt;
    if (Array.isArray(client.redirectUris)) information.redirect_uris = client.redirectUris;
    if (typeof client.issuer === 'string') information.issuer = client.issuer;
    record.clientInformation = information;
  }
  return record;
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readBounded(file, MAX_CONFIG_BYTES));
  } catch {
    return undefined;
  }
}
