// The metadata cache: every server's tools and resources as last seen, so a session can register tools
// without starting a server. One JSON file shared by every Pi session on the machine and compatible
// with pi-mcp-adapter's `mcp-cache.json` (format version 1): `{ version: 1, servers: { <name>: entry } }`.
//
// Readers never see a torn file (writes go to a temp file in the same directory, then rename), and
// concurrent sessions never lose each other's entries (read-merge-write under an inter-process lock).
// Entries and top-level fields we do not know (written by another tool) are kept as they are.
// An unusable file (corrupted, truncated, empty, another version) is moved aside and rebuilt,
// reported once. Nothing here throws.

import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { adapterConfigHash, type WrittenIdentity } from '../config/config-hash.ts';
import { CACHE_FILE_NAME, DEFAULT_CACHE_MAX_AGE_MS } from '../config/defaults.ts';
import { MAX_CONFIG_BYTES, readBounded } from '../config/read-file.ts';
import type { Diagnostic, ServerDefinition } from '../config/types.ts';
import { removeLeftoverTempFiles, replaceAtomically } from '../fs/atomic-file.ts';
import { errorCode } from '../fs/error-code.ts';
import {
  acquireFileLock,
  errorMessage,
  type FileLockOptions,
  tryAcquireFileLockSync,
} from '../fs/file-lock.ts';
import type { Logger } from '../logger.ts';
import { setOwn, stringFields } from '../plain-object.ts';
import type {
  PromptDescriptor,
  ResourceDescriptor,
  ResourceTemplateDescriptor,
  ServerCatalog,
  ServerInfo,
  ToolDescriptor,
} from '../ports/mcp.ts';
import { CACHE_VERSION, isFresh, isRecord, parseCacheDocument } from './cache-format.ts';

export { CACHE_VERSION };

export interface CachedServer {
  configHash: string;
  tools: ToolDescriptor[];
  resources: ResourceDescriptor[];
  /** Epoch milliseconds of the connect that produced this entry. */
  cachedAt: number;
  serverInfo?: ServerInfo;
  instructions?: string;
  /** pi-mcp-adapter's per-entry lifetime in ms (0 = never valid); honoured when present. */
  ttlMs?: number;
  /** Ours only (pi-mcp-adapter ignores it): prompts become slash commands before the server starts. */
  prompts?: PromptDescriptor[];
  /** Ours only (pi-mcp-adapter ignores it): resource templates become tools before the server starts. */
  resourceTemplates?: ResourceTemplateDescriptor[];
  /** Ours only: the client capabilities the listing was made with (servers vary their tools by them). */
  clientCapabilities?: string[];
}

/** The part of the project logger the cache needs. */
export type CacheLogger = Pick<Logger, 'warn'>;

export interface CacheReadResult {
  /** Well-formed entries, stale ones included (`validEntry` decides what may be used). */
  servers: Record<string, CachedServer>;
  diagnostics: Diagnostic[];
  /** False when there was no cache file (first run); an unusable file counts as found. */
  found: boolean;
}

export interface CacheStore {
  readonly file: string;
  /** Reads the file afresh. Never throws. */
  read(): CacheReadResult;
  /** The entry for this definition if its hash matches, it is younger than the max age and, when both
   * are known, it was listed with the client capabilities the reader declares (`declared`). */
  validEntry(def: ServerDefinition, now?: number, declared?: readonly string[]): CachedServer | undefined;
  /** Read-merge-write under the inter-process lock, atomically replaced. Never throws or rejects. An
   * update listed with fewer client capabilities than a fresh entry of the same config keeps that
   * entry: a client that declares less never downgrades what a richer one listed. */
  write(updates: Record<string, CachedServer>, removals?: string[]): Promise<void>;
}

export interface CacheStoreOptions {
  file: string;
  maxAgeMs?: number;
  logger?: CacheLogger;
  now?: () => number;
  lock?: FileLockOptions;
}

export function defaultCacheFile(agentDir: string): string {
  return join(agentDir, CACHE_FILE_NAME);
}

/**
 * The cache identity of a server, the same as pi-mcp-adapter 2.36's (src/config/config-hash.ts): the
 * loader computes it from the entry as written; a definition built elsewhere (Pi's registered servers,
 * tests) is hashed from its resolved fields. Runtime behaviour (lifecycle, timeouts, debug, exposure,
 * description) is left out, so changing it keeps the cache warm.
 */
export function configHash(def: ServerDefinition): string {
  if (def.configHash !== undefined) return def.configHash;
  const written: WrittenIdentity = {
    command: def.command,
    args: def.args,
    cwd: def.cwd,
    env: def.env,
    url: def.url,
    headers: def.headers,
    auth: def.auth,
    bearerToken: def.bearerToken,
    exposeResources: def.exposeResources,
    includeTools: def.includeTools,
    excludeTools: def.excludeTools.length > 0 ? def.excludeTools : undefined,
  };
  return adapterConfigHash(written, { env: {}, homeDir: homedir() });
}

/** The cache entry for a server that just connected (or refreshed its lists). */
export function cachedServerFromCatalog(
  def: ServerDefinition,
  catalog: Pick<
    ServerCatalog,
    | 'tools'
    | 'resources'
    | 'resourceTemplates'
    | 'serverInfo'
    | 'instructions'
    | 'prompts'
    | 'clientCapabilities'
    | 'toolsTtlMs'
  >,
  now: number = Date.now(),
): CachedServer {
  const entry: CachedServer = {
    configHash: configHash(def),
    tools: catalog.tools,
    resources: catalog.resources,
    cachedAt: now,
  };
  if (catalog.serverInfo) entry.serverInfo = catalog.serverInfo;
  if (catalog.instructions !== undefined) entry.instructions = catalog.instructions;
  if (catalog.prompts !== undefined) entry.prompts = catalog.prompts;
  if (catalog.resourceTemplates !== undefined) entry.resourceTemplates = catalog.resourceTemplates;
  if (catalog.clientCapabilities !== undefined) entry.clientCapabilities = [...catalog.clientCapabilities];
  // A 2026-07-28 server's word on how long its tool list stays fresh (as pi-mcp-adapter records it).
  if (catalog.toolsTtlMs !== undefined) entry.ttlMs = catalog.toolsTtlMs;
  return entry;
}

export function createCacheStore(options: CacheStoreOptions): CacheStore {
  const file = options.file;
  const maxAgeMs = options.maxAgeMs ?? DEFAULT_CACHE_MAX_AGE_MS;
  const now = options.now ?? Date.now;
  const lockPath = `${file}.lock`;
  // Signatures of unusable files already reported, so one bad file yields one report.
  const reported = new Set<string>();
  // Diagnostics produced by a read that validEntry triggered, handed out by the next read().
  let pending: Diagnostic[] = [];
  let snapshot: Record<string, CachedServer> | undefined;
  // What the last write put in the file; normalized into the snapshot only when validEntry needs it.
  let written: Record<string, unknown> | undefined;
  let queue: Promise<void> = Promise.resolve();

  function warn(message: string): void {
    try {
      options.logger?.warn(message);
    } catch {
      // A failing logger must not break the cache.
    }
  }

  function read(): CacheReadResult {
    const diagnostics = pending;
    pending = [];
    written = undefined;
    try {
      const state = inspectFile(file);
      switch (state.kind) {
        case 'missing':
          snapshot = emptyRecord();
          return { servers: snapshot, diagnostics, found: false };
        case 'unreadable':
          snapshot = emptyRecord();
          if (!reported.has(state.signature)) {
            reported.add(state.signature);
            diagnostics.push({
              level: 'warning',
              code: 'cache-unreadable',
              file,
              message: `The MCP metadata cache could not be read (${state.reason}); servers will be connected to refresh their tools.`,
            });
          }
          return { servers: snapshot, diagnostics, found: true };
        case 'invalid': {
          snapshot = emptyRecord();
          const aside = setAsideUnderLock(state);
          if (!reported.has(state.signature)) {
            reported.add(state.signature);
            diagnostics.push(invalidDiagnostic(state.reason, aside));
          }
          return { servers: snapshot, diagnostics, found: true };
        }
        case 'ok':
          snapshot = normalizeServers(state.servers);
          return { servers: snapshot, diagnostics, found: true };
      }
    } catch (error) {
      snapshot = emptyRecord();
      diagnostics.push({
        level: 'warning',
        code: 'cache-unreadable',
        file,
        message: `The MCP metadata cache could not be read (${errorMessage(error)}).`,
      });
      return { servers: snapshot, diagnostics, found: true };
    }
  }

  function invalidDiagnostic(reason: string, aside: string | undefined): Diagnostic {
    const where = aside ? `moved to ${basename(aside)}` : 'it will be replaced on the next write';
    return {
      level: 'warning',
      code: 'cache-corrupt',
      file,
      message: `The MCP metadata cache was unusable (${reason}); ${where} and is being rebuilt.`,
    };
  }

  /** During a read, set the bad file aside only if the lock is free right now (no waiting). */
  function setAsideUnderLock(state: InvalidFile): string | undefined {
    try {
      const lock = tryAcquireFileLockSync(lockPath, options.lock);
      if (!lock.ok) return undefined;
      try {
        return setAsideIfUnchanged(state);
      } finally {
        lock.release();
      }
    } catch {
      return undefined;
    }
  }

  /** Under the lock: move the file aside if it is still the same bad file (another writer may have fixed it). */
  function setAsideIfUnchanged(state: InvalidFile): string | undefined {
    const again = inspectFile(file);
    if (again.kind !== 'invalid' || again.signature !== state.signature) return undefined;
    const aside = `${file}.corrupt-${now()}`;
    try {
      fs.renameSync(file, aside);
      return aside;
    } catch {
      return undefined;
    }
  }

  function validEntry(
    def: ServerDefinition,
    at: number = now(),
    declared?: readonly string[],
  ): CachedServer | undefined {
    if (!snapshot && written) snapshot = normalizeServers(written);
    if (!snapshot) {
      const { diagnostics } = read();
      pending.push(...diagnostics);
    }
    const entries = snapshot ?? emptyRecord();
    const entry = Object.hasOwn(entries, def.name) ? entries[def.name] : undefined;
    if (!entry) return undefined;
    if (entry.configHash !== configHash(def)) return undefined;
    if (!isFresh(entry, at, maxAgeMs)) return undefined;
    // Listed for other capabilities: its tools are not the ones this reader's server offers.
    if (declared && entry.clientCapabilities && !sameNames(entry.clientCapabilities, declared))
      return undefined;
    return entry;
  }

  async function writeNow(updates: Record<string, CachedServer>, removals: string[]): Promise<void> {
    try {
      await fs.promises.mkdir(dirname(file), { recursive: true });
      const lock = await acquireFileLock(lockPath, options.lock);
      if (!lock.ok) {
        warn(`MCP metadata cache not updated: ${lock.reason}.`);
        return;
      }
      try {
        const state = inspectFile(file);
        let document: Record<string, unknown>;
        let servers: Record<string, unknown>;
        if (state.kind === 'ok') {
          document = state.document;
          servers = copyRecord(state.servers);
        } else if (state.kind === 'unreadable') {
          warn(`MCP metadata cache not updated: ${state.reason}.`);
          return;
        } else {
          if (state.kind === 'invalid') {
            const aside = setAsideIfUnchanged(state);
            if (!reported.has(state.signature)) {
              reported.add(state.signature);
              warn(invalidDiagnostic(state.reason, aside).message);
            }
          }
          document = {};
          servers = emptyRecord();
        }
        let changed = state.kind !== 'ok' || removals.some((name) => Object.hasOwn(servers, name));
        for (const name of removals) delete servers[name];
        for (const [name, entry] of Object.entries(updates)) {
          const previous = Object.hasOwn(servers, name) ? servers[name] : undefined;
          if (poorerThan(entry, previous)) continue;
          const serialized = serializeEntry(entry, previous);
          if (sameRecentEntry(previous, serialized)) continue;
          setOwn(servers, name, serialized);
          changed = true;
        }
        // Nothing new (a server listed what it listed an hour ago): the file stays as it is, so the
        // start record (src/adapters/pi/start-record.ts) still trusts it without reading it.
        if (!changed) return;
        const next: Record<string, unknown> = { ...document };
        setOwn(next, 'version', CACHE_VERSION);
        setOwn(next, 'servers', servers);
        await replaceAtomically(file, JSON.stringify(next));
        snapshot = undefined;
        written = servers;
        removeLeftoverTempFiles(file);
      } finally {
        lock.release();
      }
    } catch (error) {
      warn(`MCP metadata cache not updated: ${errorMessage(error)}.`);
    }
  }

  /** The update was listed with strictly fewer client capabilities than a fresh entry of the same config. */
  function poorerThan(entry: CachedServer, previous: unknown): boolean {
    if (!entry.clientCapabilities || !isRecord(previous)) return false;
    const before = normalizeEntry(previous);
    if (!before?.clientCapabilities || before.configHash !== entry.configHash) return false;
    if (!isFresh(before, now(), maxAgeMs)) return false;
    const kept = new Set(before.clientCapabilities);
    return (
      entry.clientCapabilities.every((name) => kept.has(name)) &&
      kept.size > new Set(entry.clientCapabilities).size
    );
  }

  return {
    file,
    read,
    validEntry,
    write(updates, removals = []) {
      // One write at a time per store; across processes the file lock orders them.
      const run = queue.then(() => writeNow(updates, removals));
      queue = run;
      return run;
    },
  };
}

type FileState =
  | { kind: 'missing' }
  | { kind: 'unreadable'; reason: string; signature: string }
  | InvalidFile
  | { kind: 'ok'; document: Record<string, unknown>; servers: Record<string, unknown> };

interface InvalidFile {
  kind: 'invalid';
  reason: string;
  /** Identifies this particular bad content, so it is reported once. */
  signature: string;
}

function inspectFile(file: string): FileState {
  let text: string;
  try {
    text = readBounded(file, MAX_CONFIG_BYTES);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return { kind: 'missing' };
    const reason = errorMessage(error);
    return { kind: 'unreadable', reason, signature: `unreadable:${reason}` };
  }
  const parsed = parseCacheDocument(text);
  if (!parsed.ok)
    return {
      kind: 'invalid',
      reason: parsed.reason,
      signature: `${parsed.reason}:${createHash('sha256').update(text).digest('hex')}`,
    };
  return { kind: 'ok', document: parsed.document, servers: parsed.servers };
}

/** Keeps the entries that have the shape we need; anything else stays in the file but is not used. */
function normalizeServers(raw: Record<string, unknown>): Record<string, CachedServer> {
  const servers = emptyRecord<CachedServer>();
  for (const [name, value] of Object.entries(raw)) {
    const entry = normalizeEntry(value);
    if (entry) setOwn(servers, name, entry);
  }
  return servers;
}

const EMPTY_OBJECT_SCHEMA = { type: 'object', properties: {} };

function normalizeEntry(value: unknown): CachedServer | undefined {
  if (!isRecord(value)) return undefined;
  const { configHash: hash, cachedAt, tools, resources, serverInfo, instructions, ttlMs, prompts } = value;
  const { resourceTemplates } = value;
  if (typeof hash !== 'string' || typeof cachedAt !== 'number' || !Array.isArray(tools)) return undefined;
  const entry: CachedServer = {
    configHash: hash,
    cachedAt,
    tools: tools.filter(isRecord).flatMap(normalizeTool),
    resources: Array.isArray(resources) ? resources.filter(isRecord).flatMap(normalizeResource) : [],
  };
  if (isRecord(serverInfo) && typeof serverInfo.name === 'string' && typeof serverInfo.version === 'string') {
    entry.serverInfo = serverInfo as unknown as ServerInfo;
  }
  if (typeof instructions === 'string') entry.instructions = instructions;
  if (typeof ttlMs === 'number') entry.ttlMs = ttlMs;
  if (Array.isArray(prompts)) entry.prompts = prompts.filter(isRecord).flatMap(normalizePrompt);
  if (Array.isArray(resourceTemplates)) {
    entry.resourceTemplates = resourceTemplates.filter(isRecord).flatMap(normalizeResourceTemplate);
  }
  const { clientCapabilities } = value;
  if (Array.isArray(clientCapabilities) && clientCapabilities.every((c) => typeof c === 'string'))
    entry.clientCapabilities = clientCapabilities as string[];
  return entry;
}

function normalizePrompt(prompt: Record<string, unknown>): PromptDescriptor[] {
  if (typeof prompt.name !== 'string' || prompt.name === '') return [];
  const descriptor: PromptDescriptor = { name: prompt.name };
  if (typeof prompt.title === 'string') descriptor.title = prompt.title;
  if (typeof prompt.description === 'string') descriptor.description = prompt.description;
  if (Array.isArray(prompt.arguments)) {
    descriptor.arguments = prompt.arguments
      .filter((a): a is Record<string, unknown> => isRecord(a) && typeof a.name === 'string')
      .map((a) => ({
        name: a.name as string,
        ...(typeof a.description === 'string' ? { description: a.description } : {}),
        ...(typeof a.required === 'boolean' ? { required: a.required } : {}),
      }));
  }
  return [descriptor];
}

// pi-mcp-adapter stores `{ name, description?, inputSchema? }`; we may have stored more. Both read back.
function normalizeTool(tool: Record<string, unknown>): ToolDescriptor[] {
  if (typeof tool.name !== 'string' || tool.name === '') return [];
  const descriptor: ToolDescriptor = {
    name: tool.name,
    inputSchema: isRecord(tool.inputSchema) ? tool.inputSchema : EMPTY_OBJECT_SCHEMA,
  };
  if (typeof tool.title === 'string') descriptor.title = tool.title;
  if (typeof tool.description === 'string') descriptor.description = tool.description;
  if (isRecord(tool.outputSchema)) descriptor.outputSchema = tool.outputSchema;
  if (isRecord(tool.annotations)) descriptor.annotations = tool.annotations;
  return [descriptor];
}

/** The optional fields a resource or template is described by. */
const DESCRIBED_BY = ['title', 'description', 'mimeType'] as const;

function normalizeResource(resource: Record<string, unknown>): ResourceDescriptor[] {
  if (typeof resource.uri !== 'string' || typeof resource.name !== 'string') return [];
  return [{ uri: resource.uri, name: resource.name, ...stringFields(resource, DESCRIBED_BY) }];
}

function normalizeResourceTemplate(template: Record<string, unknown>): ResourceTemplateDescriptor[] {
  if (typeof template.uriTemplate !== 'string' || typeof template.name !== 'string') return [];
  return [
    { uriTemplate: template.uriTemplate, name: template.name, ...stringFields(template, DESCRIBED_BY) },
  ];
}

/**
 * Our fields over the previous entry of the same server identity, so fields another extension keeps
 * there (pi-mcp-adapter's `prompts`, `ttlMs`, …) survive our rewrite; an entry of another identity
 * is replaced whole.
 */
function serializeEntry(entry: CachedServer, previous: unknown): Record<string, unknown> {
  const kept = isRecord(previous) && previous.configHash === entry.configHash ? previous : {};
  const out: Record<string, unknown> = {
    ...kept,
    configHash: entry.configHash,
    tools: entry.tools,
    resources: entry.resources,
    cachedAt: entry.cachedAt,
  };
  if (entry.serverInfo) out.serverInfo = entry.serverInfo;
  if (entry.instructions !== undefined) out.instructions = entry.instructions;
  if (entry.prompts !== undefined) out.prompts = entry.prompts;
  if (entry.resourceTemplates !== undefined) out.resourceTemplates = entry.resourceTemplates;
  if (entry.clientCapabilities !== undefined) out.clientCapabilities = entry.clientCapabilities;
  else delete out.clientCapabilities;
  if (entry.ttlMs !== undefined) out.ttlMs = entry.ttlMs;
  return out;
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  const set = new Set(a);
  return set.size === new Set(b).size && b.every((name) => set.has(name));
}

/** `cachedAt` is renewed when the entry is this old, even if nothing else changed. */
const RENEW_CACHED_AT_MS = 24 * 60 * 60 * 1000;

/** The same entry except a `cachedAt` less than a day newer. */
function sameRecentEntry(previous: unknown, next: Record<string, unknown>): boolean {
  if (!isRecord(previous) || typeof previous.cachedAt !== 'number' || typeof next.cachedAt !== 'number')
    return false;
  const renewal = next.cachedAt - previous.cachedAt;
  if (renewal < 0 || renewal >= RENEW_CACHED_AT_MS) return false;
  return stableStringify({ ...previous, cachedAt: 0 }) === stableStringify({ ...next, cachedAt: 0 });
}

/** JSON with object keys sorted at every level, so equal values hash equally. */
export function stableStringify(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? 'null';
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isRecord(value)) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) setOwn(sorted, key, sortKeys(value[key]));
  return sorted;
}

function emptyRecord<T = unknown>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

function copyRecord(source: Record<string, unknown>): Record<string, unknown> {
  const copy = emptyRecord();
  for (const [key, value] of Object.entries(source)) setOwn(copy, key, value);
  return copy;
}
