// What Pi's first model request needs from us, remembered from the last session that started from the
// same inputs: ToolSearch's description. A session whose config files, environment values, cache
// entries and Pi-side inputs are all unchanged registers it from here instead of loading, validating
// and cataloguing the config before the request; the full load follows once the request is on its way
// and reuses the file texts read here, so the config is still read once per session.
//
// `mcp-start.json` beside the cache: `{ format, salt, records: { <key>: StartRecord } }`, a few records
// (one per project and launch shape). Anything unexpected in it means "no record": the normal start runs.

import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { dirname } from 'node:path';
import { freshUntil, parseCacheDocument } from '../../catalog/cache-format.ts';
import { type ReadFile, readFileFromDisk } from '../../config/read-file.ts';
import { removeLeftoverTempFiles, replaceAtomically } from '../../fs/atomic-file.ts';

export const START_RECORD_FILE_NAME = 'mcp-start.json';
/** Bump when what a record stands for changes (the description's wording, what makes a start eligible). */
const FORMAT = 1;
const MAX_RECORDS = 16;

/** What a config load read: each file's text (undefined: absent) and each environment value. */
export interface StartInputs {
  files: Record<string, string | undefined>;
  env: Record<string, string | undefined>;
}

/**
 * One remembered start. Its inputs are kept as salted digests (config files + environment values; the
 * cache entries), so the record holds no secret and no plain hash of one. The cache file's signature
 * and the moment its first fresh entry expires let an untouched cache be trusted without reading it.
 */
interface StartRecord {
  files: string[];
  env: string[];
  servers: string[];
  digest: string;
  cacheDigest: string;
  cacheSignature: string;
  /** Epoch ms when the first fresh entry expires (null: none is fresh). */
  freshUntil: number | null;
  /** ToolSearch's description exactly as registered. */
  description: string;
  /** The start runs servers in the shared host (which is started once its request is on its way). */
  sharedHost?: boolean;
  savedAt: number;
}

interface RecordsFile {
  format: number;
  salt: string;
  records: Record<string, StartRecord>;
}

/** The cache as a load saw it: its configured servers, the file's signature, when. */
export interface SeenCache {
  servers: string[];
  signature: string;
  at: number;
}

/** The configured servers' cache entries as a start saw them. */
interface CacheView {
  servers: string[];
  /** Size, modification time and inode of the file, taken before reading it. */
  signature: string;
  /** The fresh entries without `cachedAt` (rewritten at every connect), as one text. */
  contents: string;
  freshUntil: number | null;
}

/** Same project, home, trust, `--mcp-config` and servers from other extensions. */
export function startKey(parts: {
  cwd: string;
  homeDir: string;
  projectTrusted: boolean;
  /** Trusted by Pi's default only: project servers need our own consent (whose file is an input). */
  askConsent?: boolean;
  configPath?: string;
  piServers?: unknown;
}): string {
  const key = [
    parts.cwd,
    parts.homeDir,
    parts.projectTrusted,
    parts.askConsent ?? false,
    parts.configPath ?? null,
    parts.piServers ?? null,
  ];
  return createHash('sha256').update(JSON.stringify(key)).digest('base64url');
}

/**
 * A config load's view of files and environment that notes what it read; `inputs()` is undefined when
 * the load listed the environment instead of asking for names (no record can stand for that).
 */
export function recordingInputs(
  env: Record<string, string | undefined>,
  readFile: ReadFile = readFileFromDisk,
): { env: Record<string, string | undefined>; readFile: ReadFile; inputs(): StartInputs | undefined } {
  const files: Record<string, string | undefined> = {};
  const values: Record<string, string | undefined> = {};
  let complete = true;
  const note = (name: string | symbol) => {
    if (typeof name === 'string') values[name] = env[name];
  };
  const watched = new Proxy(env, {
    get: (target, name) => {
      note(name);
      return Reflect.get(target, name);
    },
    has: (target, name) => {
      note(name);
      return Reflect.has(target, name);
    },
    ownKeys: (target) => {
      complete = false;
      return Reflect.ownKeys(target);
    },
  });
  return {
    env: watched,
    readFile: (path) => {
      const text = readFile(path);
      files[path] = text;
      return text;
    },
    inputs: () => (complete ? { files: { ...files }, env: { ...values } } : undefined),
  };
}

interface RememberedStart {
  description: string;
  /** Its servers run in the shared host. */
  sharedHost: boolean;
  /** The config texts read to check the record; the session's full load reuses them. */
  texts: Map<string, string | undefined>;
  /** Set when the cache file was rewritten with the same entries: saves its new signature. */
  refresh?: () => Promise<void>;
}

export function createStartRecords(file: string, cacheFile: string) {
  /** The remembered start for this key when every input is as recorded. */
  function match(
    key: string,
    env: Record<string, string | undefined>,
    now: number,
  ): RememberedStart | undefined {
    try {
      const stored = readRecords();
      const record = stored?.records[key];
      if (!stored || !record) return undefined;
      const texts = new Map(record.files.map((path) => [path, readFileFromDisk(path)]));
      const inputs = {
        files: Object.fromEntries(texts),
        env: Object.fromEntries(record.env.map((name) => [name, env[name]])),
      };
      if (digestOf(stored.salt, [inputs.files, inputs.env]) !== record.digest) return undefined;
      const untouched =
        signatureOf(cacheFile) === record.cacheSignature && (record.freshUntil ?? Infinity) > now;
      const sharedHost = record.sharedHost === true;
      if (untouched) return { description: record.description, sharedHost, texts };
      const cache = readCache(record.servers, now);
      if (digestOf(stored.salt, cache.contents) !== record.cacheDigest) return undefined;
      const refreshed = { ...record, cacheSignature: cache.signature, freshUntil: cache.freshUntil };
      return { description: record.description, sharedHost, texts, refresh: () => store(key, refreshed) };
    } catch {
      return undefined;
    }
  }

  /**
   * The configured servers' cache entries (the file is replaced atomically; its signature is taken
   * first, so a later rewrite is never mistaken for this one).
   */
  function readCache(servers: string[], now: number): CacheView {
    const signature = signatureOf(cacheFile);
    let entries: Record<string, unknown> = {};
    try {
      const text = readFileFromDisk(cacheFile);
      const parsed = text === undefined ? undefined : parseCacheDocument(text);
      // An unusable cache (as the cache itself judges it): every entry counts as absent.
      if (parsed?.ok) entries = parsed.servers;
    } catch {
      // Unreadable: the same.
    }
    let freshUntil: number | null = null;
    const contents = servers.map((name) => {
      const fresh = freshEntry(Object.hasOwn(entries, name) ? entries[name] : undefined, now);
      if (!fresh) return null;
      if (freshUntil === null || fresh.expiresAt < freshUntil) freshUntil = fresh.expiresAt;
      return fresh.content;
    });
    return { servers, signature, contents: JSON.stringify(contents), freshUntil };
  }

  /** The cache as a load is about to read it (the file's signature first), for `save`. */
  function seeCache(servers: string[], at: number = Date.now()): SeenCache {
    return { servers, signature: signatureOf(cacheFile), at };
  }

  /**
   * Remembers a start that loaded in full, once its request is on its way: the cache is read here, and
   * only if it is still the file the start read (`seen`, taken before), so the record pairs the
   * description with the entries it was built from. A failure only means the next start takes longer.
   */
  async function save(
    key: string,
    inputs: StartInputs,
    seen: SeenCache,
    description: string,
    sharedHost = false,
  ): Promise<void> {
    const cache = readCache(seen.servers, seen.at);
    if (cache.signature !== seen.signature || signatureOf(cacheFile) !== seen.signature) return;
    const salt = readRecords()?.salt ?? randomBytes(16).toString('base64url');
    await store(
      key,
      {
        files: Object.keys(inputs.files),
        env: Object.keys(inputs.env),
        servers: cache.servers,
        digest: digestOf(salt, [inputs.files, inputs.env]),
        cacheDigest: digestOf(salt, cache.contents),
        cacheSignature: cache.signature,
        freshUntil: cache.freshUntil,
        description,
        ...(sharedHost ? { sharedHost } : {}),
        savedAt: Date.now(),
      },
      salt,
    );
  }

  /** Writes this record and keeps the most recent others. */
  async function store(key: string, record: StartRecord, salt?: string): Promise<void> {
    try {
      const stored = readRecords();
      const useSalt = stored?.salt ?? salt;
      if (useSalt === undefined || (salt !== undefined && salt !== useSalt)) return;
      const kept = Object.entries({ ...stored?.records, [key]: { ...record, savedAt: Date.now() } })
        .sort(([, a], [, b]) => b.savedAt - a.savedAt)
        .slice(0, MAX_RECORDS);
      await fs.promises.mkdir(dirname(file), { recursive: true });
      const next: RecordsFile = { format: FORMAT, salt: useSalt, records: Object.fromEntries(kept) };
      await replaceAtomically(file, JSON.stringify(next));
      removeLeftoverTempFiles(file);
    } catch {
      // Nothing depends on it.
    }
  }

  function readRecords(): RecordsFile | undefined {
    try {
      const text = readFileFromDisk(file);
      if (text === undefined) return undefined;
      const parsed = JSON.parse(text) as Partial<RecordsFile>;
      if (parsed.format !== FORMAT || typeof parsed.salt !== 'string') return undefined;
      if (typeof parsed.records !== 'object' || parsed.records === null) return undefined;
      return parsed as RecordsFile;
    } catch {
      return undefined;
    }
  }

  return { match, seeCache, save };
}

function digestOf(salt: string, value: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify([FORMAT, salt, value]))
    .digest('base64url');
}

function signatureOf(path: string): string {
  try {
    const stat = fs.statSync(path, { bigint: true });
    return `${stat.size}:${stat.mtimeNs}:${stat.ino}`;
  } catch {
    return 'missing';
  }
}

/** The entry without `cachedAt` (rewritten at every connect) while it is fresh by the cache's rule. */
function freshEntry(entry: unknown, now: number): { content: unknown; expiresAt: number } | undefined {
  if (typeof entry !== 'object' || entry === null) return undefined;
  const expiresAt = freshUntil(entry);
  if (expiresAt === undefined || now >= expiresAt) return undefined;
  const { cachedAt: _cachedAt, ...content } = entry as { cachedAt?: unknown };
  return { content, expiresAt };
}
