// The sign-in store: one 0600 JSON file per user in the agent dir (`mcp-oauth.json`) holding, per
// server name + URL, the OAuth tokens (stamped with the issuer that granted them), the registered
// client, the discovery results and the scope a step-up asked for. Written atomically under an
// inter-process lock, so the CLI and every Pi session share it; watched, so a sign-in anywhere wakes
// every session waiting on it.
//
// Tokens a user already has from Pi's built-in MCP (`mcp-auth.json`, same server name and URL) are
// read when this store has none, then pi-mcp-adapter's (./adapter-sign-ins.ts); the first refresh
// writes them here. Their files are never written.
//
// An entry with OAuth settings of its own (`settings`, a fingerprint from ./sign-in-binding.ts) has
// its own sign-in under `name|url|settings`: it never reads the sign-in of an entry of the same name
// and URL made with other settings, nor one imported from another client (those were made without).
// Plain file logic: no SDK, no XState. Nothing here throws on a missing or unreadable file.

import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { dirname, join } from 'node:path';
import { MAX_CONFIG_BYTES, readBounded } from '../config/read-file.ts';
import { removeLeftoverTempFiles, replaceAtomically } from '../fs/atomic-file.ts';
import { acquireFileLock, errorMessage } from '../fs/file-lock.ts';
import type { SecretValues } from '../redact/index.ts';
import {
  type AdapterSignInSettings,
  type AdapterSignInSource,
  adapterFiles,
  readAdapterSignIn,
  unreadableSignInNote,
} from './adapter-sign-ins.ts';
import { normalizeUrl, type SignInRecord, type StoredTokens } from './sign-in-record.ts';

export { normalizeUrl, type SignInRecord, type StoredTokens };

export const TOKEN_STORE_FILE = 'mcp-oauth.json';
export const PI_AUTH_FILE = 'mcp-auth.json';
const STORE_VERSION = 1;
const WATCH_INTERVAL_MS = 500;

export interface TokenStore {
  readonly file: string;
  get(name: string, url: string, settings?: string): SignInRecord | undefined;
  /** Read-merge-write under the lock; `change` returns the new record, or undefined to remove it. */
  update(
    name: string,
    url: string,
    change: (current: SignInRecord | undefined) => SignInRecord | undefined,
    settings?: string,
  ): Promise<SignInRecord | undefined>;
  remove(name: string, url: string, settings?: string): Promise<boolean>;
  /** Sign-ins of this name and URL made with other OAuth settings than `settings` (ours only). */
  othersOf(name: string, url: string, settings?: string): SignInRecord[];
  /** Where the user may have signed in that this store cannot read (said with a needs-auth error). */
  signInElsewhere?(name: string): string | undefined;
  /** Runs `fn` holding this server's refresh lock (one refresh at a time across processes). */
  withRefreshLock<T>(name: string, url: string, fn: () => Promise<T>, settings?: string): Promise<T>;
  /** Calls `onChange` when this server's tokens change in any process (polls the file's stat). */
  watch(name: string, url: string, onChange: () => void, settings?: string): () => void;
  /** Where pi-mcp-adapter's sign-ins are, as the loaded config says (the last load wins, as the config does). */
  useAdapterSignInSettings(settings: AdapterSignInSettings): void;
  /**
   * Every token this store reads or writes, and every sign-in secret given to `learnSecrets`, is added
   * to `secrets` (a runtime's known secrets) from now on, until the returned function is called.
   */
  shareSecrets(secrets: SecretValues): () => void;
  /** A sign-in secret that is not stored (an authorization code, a PKCE verifier), for the runtimes sharing. */
  learnSecrets(values: Iterable<unknown>): void;
}

export function storeKey(name: string, url: string, settings = ''): string {
  return `${name}|${normalizeUrl(url)}${settings ? `|${settings}` : ''}`;
}

/** Pi's built-in MCP keys: `mcp__<name, - as _>|<url>`, or the URL alone (older versions). */
function piKeys(name: string, url: string): string[] {
  const normalized = normalizeUrl(url);
  return [`mcp__${name.replace(/-/g, '_')}|${normalized}`, normalized];
}

export interface TokenStoreOptions {
  agentDir: string;
  /** Pi's built-in MCP credentials; default `<agentDir>/mcp-auth.json`. `false` = do not read it. */
  piAuthFile?: string | false;
  /**
   * pi-mcp-adapter's sign-ins; default this agent dir and process.env (its file key, MCP_OAUTH_DIR).
   * `false` = do not read them.
   */
  adapterSignIns?: AdapterSignInSource | false;
  onWarning?: (message: string) => void;
}

export function createTokenStore(options: TokenStoreOptions): TokenStore {
  const file = join(options.agentDir, TOKEN_STORE_FILE);
  const piFile =
    options.piAuthFile === false ? undefined : (options.piAuthFile ?? join(options.agentDir, PI_AUTH_FILE));
  let adapter =
    options.adapterSignIns === false
      ? undefined
      : (options.adapterSignIns ?? { agentDir: options.agentDir, env: process.env });
  const lockPath = `${file}.lock`;
  let cached: { signature: string; records: Record<string, SignInRecord> } | undefined;
  let writes: Promise<unknown> = Promise.resolve();
  /** The runtimes' known secrets this store's tokens go to (see shareSecrets). */
  const sharing = new Set<SecretValues>();
  const learn = (values: Iterable<unknown>) => {
    if (sharing.size === 0) return;
    const list = [...values];
    for (const secrets of sharing) secrets.add(list);
  };

  function readOurs(): Record<string, SignInRecord> {
    const signature = statSignature(file);
    if (cached && cached.signature === signature) return cached.records;
    let records: Record<string, SignInRecord> = {};
    if (signature !== 'missing') {
      try {
        const parsed = JSON.parse(readBounded(file, MAX_CONFIG_BYTES)) as { servers?: unknown };
        if (isRecord(parsed?.servers)) records = parsed.servers as Record<string, SignInRecord>;
      } catch (error) {
        options.onWarning?.(
          `MCP sign-in store ${file} is unreadable (${errorMessage(error)}); sign in again.`,
        );
      }
    }
    cached = { signature, records };
    learn(recordSecrets(Object.values(records)));
    return records;
  }

  function readPiStates(): Record<string, unknown> {
    if (!piFile) return {};
    try {
      const states = JSON.parse(readBounded(piFile, MAX_CONFIG_BYTES)) as unknown;
      return isRecord(states) ? states : {};
    } catch {
      // No Pi sign-ins, or a file we cannot read: nothing to import.
      return {};
    }
  }

  function readPi(name: string, url: string): SignInRecord | undefined {
    const states = readPiStates();
    for (const key of piKeys(name, url)) {
      const state = states[key];
      if (!isRecord(state) || !isRecord(state.tokens)) continue;
      const tokens = state.tokens as StoredTokens;
      if (typeof tokens.access_token !== 'string') continue;
      const record: SignInRecord = { name, url: normalizeUrl(url), tokens, source: 'pi' };
      learn(recordSecrets([record]));
      if (typeof state.tokensExpireAt === 'number') record.tokensExpireAt = state.tokensExpireAt;
      if (isRecord(state.clientInformation)) record.clientInformation = state.clientInformation;
      return record;
    }
    return undefined;
  }

  function readAdapter(name: string, url: string): SignInRecord | undefined {
    if (!adapter) return undefined;
    const record = readAdapterSignIn(adapter, name, url, learn);
    if (record) learn(recordSecrets([record]));
    return record;
  }

  /** One the user already has in Pi or pi-mcp-adapter: made without OAuth settings of an entry. */
  function readForeign(name: string, url: string, settings = ''): SignInRecord | undefined {
    if (settings) return undefined;
    return readPi(name, url) ?? readAdapter(name, url);
  }

  function get(name: string, url: string, settings = ''): SignInRecord | undefined {
    return readOurs()[storeKey(name, url, settings)] ?? readForeign(name, url, settings);
  }

  async function writeRecords(change: (records: Record<string, SignInRecord>) => void): Promise<void> {
    await fs.promises.mkdir(dirname(file), { recursive: true, mode: 0o700 });
    const lock = await acquireFileLock(lockPath);
    if (!lock.ok) throw new Error(`MCP sign-in store not updated: ${lock.reason}`);
    try {
      cached = undefined;
      const records = { ...readOurs() };
      change(records);
      await replaceAtomically(
        file,
        `${JSON.stringify({ version: STORE_VERSION, servers: records }, null, 2)}\n`,
        {
          mode: 0o600,
        },
      );
      cached = undefined;
      removeLeftoverTempFiles(file);
    } finally {
      lock.release();
    }
  }

  function queued<T>(run: () => Promise<T>): Promise<T> {
    const next = writes.then(run, run);
    writes = next.catch(() => undefined);
    return next;
  }

  return {
    file,
    get,
    othersOf(name, url, settings = '') {
      const prefix = storeKey(name, url);
      const own = storeKey(name, url, settings);
      return Object.entries(readOurs())
        .filter(
          ([key, record]) => key !== own && (key === prefix || key.startsWith(`${prefix}|`)) && record.tokens,
        )
        .map(([, record]) => record);
    },
    update(name, url, change, settings = '') {
      return queued(async () => {
        const key = storeKey(name, url, settings);
        let result: SignInRecord | undefined;
        await writeRecords((records) => {
          const current = records[key] ?? readForeign(name, url, settings);
          result = change(current === undefined ? undefined : { ...current });
          if (result) learn(recordSecrets([result]));
          if (result === undefined) delete records[key];
          else {
            const { source: _source, ...rest } = result;
            records[key] = { ...rest, name, url: normalizeUrl(url), updatedAt: Date.now() };
          }
        });
        return result;
      });
    },
    signInElsewhere: (name) => (adapter ? unreadableSignInNote(adapter, name) : undefined),
    shareSecrets(secrets) {
      sharing.add(secrets);
      // What was read before this runtime joined.
      if (cached) secrets.add(recordSecrets(Object.values(cached.records)));
      return () => {
        sharing.delete(secrets);
      };
    },
    learnSecrets: learn,
    useAdapterSignInSettings(settings) {
      if (adapter) adapter = { ...adapter, settings: { ...settings } };
    },
    remove(name, url, settings = '') {
      return queued(async () => {
        const key = storeKey(name, url, settings);
        let existed = false;
        await writeRecords((records) => {
          const foreign = readForeign(name, url, settings);
          existed = key in records || foreign !== undefined;
          delete records[key];
          // Their store keeps its sign-in: an empty record here says the user signed out of it.
          if (foreign) records[key] = { name, url: normalizeUrl(url), updatedAt: Date.now() };
        });
        return existed;
      });
    },
    async withRefreshLock(name, url, fn, settings = '') {
      await fs.promises.mkdir(dirname(file), { recursive: true, mode: 0o700 });
      const hash = createHash('sha256')
        .update(storeKey(name, url, settings))
        .digest('hex')
        .slice(0, 16);
      const lock = await acquireFileLock(`${file}.refresh-${hash}.lock`, {
        timeoutMs: 20_000,
        staleMs: 20_000,
      });
      try {
        return await fn();
      } finally {
        if (lock.ok) lock.release();
      }
    },
    watch(name, url, onChange, settings = '') {
      let last = tokenSignature(get(name, url, settings));
      const check = () => {
        const now = tokenSignature(get(name, url, settings));
        if (now === last) return;
        last = now;
        if (now !== '') onChange();
      };
      const files = [file, ...(piFile ? [piFile] : []), ...(adapter ? adapterFiles(adapter, name) : [])];
      for (const path of files) fs.watchFile(path, { interval: WATCH_INTERVAL_MS, persistent: false }, check);
      return () => {
        for (const path of files) fs.unwatchFile(path, check);
      };
    },
  };
}

/** The secrets of sign-in records: access and refresh tokens, client secrets and registration tokens. */
function recordSecrets(records: SignInRecord[]): string[] {
  const out: string[] = [];
  for (const record of records) {
    for (const value of [
      record.tokens?.access_token,
      record.tokens?.refresh_token,
      record.clientInformation?.client_secret,
      record.clientInformation?.registration_access_token,
      record.dpopKey?.privateJwk.d,
    ]) {
      if (typeof value === 'string') out.push(value);
    }
  }
  return out;
}

/** Changes whenever the stored access token does (a sign-in, a refresh, a sign-out). */
export function tokenSignature(record: SignInRecord | undefined): string {
  const token = record?.tokens?.access_token;
  return token ? createHash('sha256').update(token).digest('hex') : '';
}

function statSignature(path: string): string {
  try {
    const stat = fs.statSync(path);
    return `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
  } catch {
    return 'missing';
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
