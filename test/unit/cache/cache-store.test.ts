import * as fs from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type CachedServer,
  cachedServerFromCatalog,
  configHash,
  createCacheStore,
} from '../../../src/catalog/cache.ts';
import { DEFAULT_CACHE_MAX_AGE_MS } from '../../../src/config/defaults.ts';
import type { ToolDescriptor } from '../../../src/ports/mcp.ts';
import { definition } from '../../fixtures/cache/definition.ts';

const NOW = 1_760_000_000_000;
const DAY = 24 * 60 * 60 * 1000;

let dir: string;
let file: string;
let warnings: string[];

beforeEach(() => {
  dir = fs.mkdtempSync(join(tmpdir(), 'mcp-cache-'));
  file = join(dir, 'agent', 'mcp-cache.json');
  warnings = [];
});

afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function store(options: { maxAgeMs?: number; lockTimeoutMs?: number } = {}) {
  return createCacheStore({
    file,
    now: () => NOW,
    logger: { warn: (message) => warnings.push(message) },
    ...(options.maxAgeMs === undefined ? {} : { maxAgeMs: options.maxAgeMs }),
    ...(options.lockTimeoutMs === undefined ? {} : { lock: { timeoutMs: options.lockTimeoutMs } }),
  });
}

const echoTool: ToolDescriptor = {
  name: 'echo',
  description: 'Echo the input',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
};

function entryFor(name: string, overrides: Partial<CachedServer> = {}): CachedServer {
  return {
    configHash: configHash(definition(name)),
    tools: [echoTool],
    resources: [],
    cachedAt: NOW,
    ...overrides,
  };
}

function writeRaw(content: string): void {
  fs.mkdirSync(join(dir, 'agent'), { recursive: true });
  fs.writeFileSync(file, content);
}

function onDisk(): any {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

function asideFiles(): string[] {
  return fs.readdirSync(join(dir, 'agent')).filter((name) => name.startsWith('mcp-cache.json.corrupt-'));
}

describe('reading and writing', () => {
  it('reports a missing file as not found, without diagnostics', () => {
    expect(store().read()).toEqual({ servers: {}, diagnostics: [], found: false });
  });

  it('writes version 1 with the servers and reads them back', async () => {
    const cache = store();
    await cache.write({ alpha: entryFor('alpha') });
    expect(onDisk()).toEqual({ version: 1, servers: { alpha: entryFor('alpha') } });
    const fresh = store().read();
    expect(fresh.found).toBe(true);
    expect(fresh.diagnostics).toEqual([]);
    expect({ ...fresh.servers }).toEqual({ alpha: entryFor('alpha') });
  });

  it('merges separate writes and applies removals', async () => {
    const first = store();
    const second = store();
    await first.write({ alpha: entryFor('alpha') });
    await second.write({ beta: entryFor('beta') });
    expect(Object.keys(onDisk().servers).sort()).toEqual(['alpha', 'beta']);
    await first.write({ gamma: entryFor('gamma') }, ['alpha']);
    expect(Object.keys(onDisk().servers).sort()).toEqual(['beta', 'gamma']);
  });

  it('leaves the file untouched when a server lists the same again within a day, and renews it after', async () => {
    const cache = store();
    await cache.write({ alpha: entryFor('alpha') });
    const stat = () => fs.statSync(file, { bigint: true });
    const before = stat();
    await cache.write({ alpha: entryFor('alpha', { cachedAt: NOW + DAY - 1 }) });
    expect([stat().ino, stat().mtimeNs]).toEqual([before.ino, before.mtimeNs]);
    expect(onDisk().servers.alpha.cachedAt).toBe(NOW);
    // Something else changed: written at once.
    const other = { ...echoTool, description: 'Echo it back' };
    await cache.write({ alpha: entryFor('alpha', { cachedAt: NOW + 1, tools: [other] }) });
    expect(onDisk().servers.alpha).toMatchObject({ cachedAt: NOW + 1, tools: [other] });
    // Unchanged for a day: the timestamp is renewed.
    await cache.write({ alpha: entryFor('alpha', { cachedAt: NOW + 1 + DAY, tools: [other] }) });
    expect(onDisk().servers.alpha.cachedAt).toBe(NOW + 1 + DAY);
  });

  it('keeps serverInfo and instructions', async () => {
    const entry = entryFor('alpha', {
      serverInfo: { name: 'alpha', version: '1.2.3' },
      instructions: 'Use it.',
    });
    await store().write({ alpha: entry });
    expect(store().read().servers.alpha).toEqual(entry);
  });

  it('keeps resource templates, dropping malformed ones, and a rewrite of the same server keeps them', async () => {
    const templates = [
      { uriTemplate: 'demo://item/{id}', name: 'item', description: 'An item', mimeType: 'text/plain' },
      { uriTemplate: 'demo://search{?q}', name: 'search', title: 'Search' },
    ];
    const entry = entryFor('alpha', { resourceTemplates: templates });
    await store().write({ alpha: entry });
    expect(store().read().servers.alpha).toEqual(entry);
    // An entry written by a session that did not list templates leaves the ones on disk alone.
    await store().write({ alpha: entryFor('alpha', { tools: [] }) });
    expect(onDisk().servers.alpha.resourceTemplates).toEqual(templates);

    const raw = onDisk();
    raw.servers.alpha.resourceTemplates.push({ name: 'no template' }, 'junk');
    writeRaw(JSON.stringify(raw));
    expect(store().read().servers.alpha?.resourceTemplates).toEqual(templates);
  });

  it('serializes concurrent writes from one store without losing any', async () => {
    const cache = store();
    await Promise.all(Array.from({ length: 20 }, (_, i) => cache.write({ [`s${i}`]: entryFor(`s${i}`) })));
    expect(Object.keys(onDisk().servers)).toHaveLength(20);
  });

  it('treats a server named __proto__ as an ordinary key', async () => {
    await store().write(Object.fromEntries([['__proto__', entryFor('__proto__')]]));
    await store().write({ other: entryFor('other') });
    const servers = store().read().servers;
    expect(Object.keys(servers).sort()).toEqual(['__proto__', 'other']);
    expect(store().validEntry(definition('__proto__'))).toEqual(entryFor('__proto__'));
  });

  it('stores no secret from the definition', async () => {
    const def = definition('gh', {
      env: { GITHUB_TOKEN: 'ghp_supersecretvalue' },
      headers: { Authorization: 'Bearer header-secret-value' },
      bearerToken: 'bearer-secret-value',
    });
    const entry = cachedServerFromCatalog(def, { tools: [echoTool], resources: [] }, NOW);
    await store().write({ gh: entry });
    const text = fs.readFileSync(file, 'utf8');
    expect(text).not.toContain('ghp_supersecretvalue');
    expect(text).not.toContain('header-secret-value');
    expect(text).not.toContain('bearer-secret-value');
    expect(store().validEntry(def)).toEqual(entry);
  });

  it("a 2026-07-28 tool list's ttlMs becomes the entry's freshness, written as pi-mcp-adapter writes it", async () => {
    const def = definition('modern');
    const entry = cachedServerFromCatalog(def, { tools: [echoTool], resources: [], toolsTtlMs: DAY }, NOW);
    expect(entry.ttlMs).toBe(DAY);
    await store().write({ modern: entry });
    expect(onDisk().servers.modern.ttlMs).toBe(DAY);
    expect(store().validEntry(def, NOW + DAY - 1)).toEqual(entry);
    expect(store().validEntry(def, NOW + DAY)).toBeUndefined();
    // ttlMs 0: the server does not want its list reused.
    await store().write({
      modern: cachedServerFromCatalog(def, { tools: [echoTool], resources: [], toolsTtlMs: 0 }, NOW),
    });
    expect(store().validEntry(def, NOW + 1)).toBeUndefined();
  });

  it('never rejects when the directory cannot be created, and says why', async () => {
    fs.writeFileSync(join(dir, 'agent'), 'a file where the directory should be');
    await expect(store().write({ alpha: entryFor('alpha') })).resolves.toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/not updated/);
  });

  it('gives up after the lock bound when another live process holds the lock', async () => {
    const cache = store({ lockTimeoutMs: 40 });
    await cache.write({ alpha: entryFor('alpha') });
    const lock = JSON.stringify({
      pid: process.pid,
      host: hostname(),
      token: 'other',
      createdAt: Date.now(),
    });
    fs.writeFileSync(`${file}.lock`, lock);
    await expect(cache.write({ beta: entryFor('beta') })).resolves.toBeUndefined();
    expect(warnings.join('\n')).toMatch(/stayed locked/);
    expect(Object.keys(onDisk().servers)).toEqual(['alpha']);
    expect(fs.readFileSync(`${file}.lock`, 'utf8')).toBe(lock);
  });

  it('removes temp files left by writers that died before renaming', async () => {
    fs.mkdirSync(join(dir, 'agent'), { recursive: true });
    const old = join(dir, 'agent', 'mcp-cache.json.4242.0badf00d.tmp');
    const young = join(dir, 'agent', 'mcp-cache.json.4243.0badf00e.tmp');
    fs.writeFileSync(old, '{"version":1,"ser');
    fs.writeFileSync(young, '{"version":1,"ser');
    const longAgo = new Date(Date.now() - 10 * 60_000);
    fs.utimesSync(old, longAgo, longAgo);
    await store().write({ alpha: entryFor('alpha') });
    expect(fs.existsSync(old)).toBe(false);
    expect(fs.existsSync(young)).toBe(true);
  });
});

describe('compatibility with pi-mcp-adapter files', () => {
  const foreign = {
    version: 1,
    writtenBy: 'pi-mcp-adapter',
    servers: {
      'chrome-devtools': {
        configHash: 'a7f3e9c8b2d1f4e5c6a8b9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0',
        tools: [
          { name: 'navigate', description: 'Navigate to a URL', inputSchema: { type: 'object' } },
          { name: 'take_screenshot' },
          { description: 'no name, skipped' },
        ],
        resources: [{ uri: 'file:///log', name: 'log' }, { name: 'no uri' }],
        cachedAt: 1709500800000,
        futureField: { kept: true },
      },
    },
  };

  it('reads their entries, filling what their format leaves optional', () => {
    writeRaw(JSON.stringify(foreign, null, 2));
    const { servers, diagnostics } = store().read();
    expect(diagnostics).toEqual([]);
    expect(servers['chrome-devtools']).toEqual({
      configHash: foreign.servers['chrome-devtools'].configHash,
      tools: [
        { name: 'navigate', description: 'Navigate to a URL', inputSchema: { type: 'object' } },
        { name: 'take_screenshot', inputSchema: { type: 'object', properties: {} } },
      ],
      resources: [{ uri: 'file:///log', name: 'log' }],
      cachedAt: 1709500800000,
    });
  });

  it('keeps their entries and unknown fields untouched when writing ours', async () => {
    writeRaw(JSON.stringify(foreign, null, 2));
    await store().write({ alpha: entryFor('alpha') });
    const after = onDisk();
    expect(after.writtenBy).toBe('pi-mcp-adapter');
    expect(after.servers['chrome-devtools']).toEqual(foreign.servers['chrome-devtools']);
    expect(after.servers.alpha).toEqual(entryFor('alpha'));
  });

  it('rewriting a server they cached adds our resource templates and keeps their fields', async () => {
    const theirs = { ...foreign.servers['chrome-devtools'], configHash: configHash(definition('chrome')) };
    writeRaw(JSON.stringify({ ...foreign, servers: { chrome: theirs } }));
    const templates = [{ uriTemplate: 'page://{id}', name: 'page' }];
    await store().write({ chrome: entryFor('chrome', { resourceTemplates: templates }) });
    const written = onDisk().servers.chrome;
    expect(written.futureField).toEqual({ kept: true });
    expect(written.resourceTemplates).toEqual(templates);
    expect(written.tools).toEqual([echoTool]);
  });

  it('writes entries their loader accepts (version 1, configHash, tools with name/description/inputSchema, cachedAt)', async () => {
    await store().write({ alpha: entryFor('alpha') });
    const raw = onDisk();
    expect(raw.version).toBe(1);
    const entry = raw.servers.alpha;
    expect(typeof entry.configHash).toBe('string');
    expect(typeof entry.cachedAt).toBe('number');
    expect(entry.tools[0]).toMatchObject({
      name: 'echo',
      description: 'Echo the input',
      inputSchema: expect.any(Object),
    });
    expect(Array.isArray(entry.resources)).toBe(true);
  });
});

describe('validEntry: invalidation rules', () => {
  it('returns the entry when the hash matches and it is fresh', async () => {
    await store().write({ alpha: entryFor('alpha') });
    expect(store().validEntry(definition('alpha'))).toEqual(entryFor('alpha'));
  });

  it('rejects an entry whose identity changed', async () => {
    await store().write({ alpha: entryFor('alpha') });
    expect(store().validEntry(definition('alpha', { args: ['other.js'] }))).toBeUndefined();
    expect(store().validEntry(definition('alpha', { env: { TOKEN: 'new' } }))).toBeUndefined();
  });

  it('keeps an entry valid when only lifecycle, idle timeout or debug changed', async () => {
    await store().write({ alpha: entryFor('alpha') });
    const changed = definition('alpha', { lifecycle: 'eager', idleTimeoutMs: 1, debug: true });
    expect(store().validEntry(changed)).toEqual(entryFor('alpha'));
  });

  it('accepts an entry just under 7 days old and rejects one at or over 7 days', async () => {
    await store().write({ alpha: entryFor('alpha') });
    const cache = store();
    expect(cache.validEntry(definition('alpha'), NOW + DEFAULT_CACHE_MAX_AGE_MS - 1)).toBeDefined();
    expect(cache.validEntry(definition('alpha'), NOW + DEFAULT_CACHE_MAX_AGE_MS)).toBeUndefined();
    expect(cache.validEntry(definition('alpha'), NOW + 8 * DAY)).toBeUndefined();
  });

  it('uses the injected clock by default and honours a custom max age', async () => {
    await store().write({ alpha: entryFor('alpha', { cachedAt: NOW - 2 * DAY }) });
    expect(store().validEntry(definition('alpha'))).toBeDefined();
    expect(store({ maxAgeMs: DAY }).validEntry(definition('alpha'))).toBeUndefined();
  });

  it.each([
    ['missing', undefined],
    ['a string', '1709500800000'],
    ['zero', 0],
  ])('rejects an entry whose cachedAt is %s', (_label, cachedAt) => {
    const entry: Record<string, unknown> = {
      configHash: configHash(definition('alpha')),
      tools: [],
      resources: [],
    };
    if (cachedAt !== undefined) entry.cachedAt = cachedAt;
    writeRaw(JSON.stringify({ version: 1, servers: { alpha: entry } }));
    expect(store().validEntry(definition('alpha'))).toBeUndefined();
  });

  it('returns nothing for a server that is not cached', async () => {
    await store().write({ alpha: entryFor('alpha') });
    expect(store().validEntry(definition('beta'))).toBeUndefined();
  });

  it('sees entries another process wrote once it reads again', async () => {
    const mine = store();
    expect(mine.validEntry(definition('alpha'))).toBeUndefined();
    await store().write({ alpha: entryFor('alpha') });
    mine.read();
    expect(mine.validEntry(definition('alpha'))).toBeDefined();
  });
});

describe('unusable files are set aside, rebuilt and reported once', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['truncated JSON', '{"version":1,"servers":{"alpha":{"configHash":"ab', /not valid JSON/],
    ['a wrong version', JSON.stringify({ version: 2, servers: {} }), /format version 2, expected 1/],
    ['a missing version', JSON.stringify({ servers: {} }), /format version missing/],
    ['not an object (array)', '[1,2,3]', /not a JSON object/],
    ['not an object (number)', '42', /not a JSON object/],
    ['not an object (null)', 'null', /not a JSON object/],
    ['an empty file', '', /empty file/],
    ['whitespace only', '  \n', /empty file/],
    ['no servers object', JSON.stringify({ version: 1, servers: [] }), /no "servers" object/],
  ];

  it.each(cases)('on read: %s', async (_label, content, reason) => {
    writeRaw(content);
    const cache = store();
    const first = cache.read();
    expect(first.found).toBe(true);
    expect({ ...first.servers }).toEqual({});
    expect(first.diagnostics).toHaveLength(1);
    expect(first.diagnostics[0]).toMatchObject({ level: 'warning', code: 'cache-corrupt', file });
    expect(first.diagnostics[0]!.message).toMatch(reason);
    expect(first.diagnostics[0]!.message).toContain(`mcp-cache.json.corrupt-${NOW}`);
    expect(asideFiles()).toEqual([`mcp-cache.json.corrupt-${NOW}`]);
    expect(fs.readFileSync(join(dir, 'agent', asideFiles()[0]!), 'utf8')).toBe(content);
    expect(fs.existsSync(file)).toBe(false);

    expect(cache.read().diagnostics).toEqual([]);
    await cache.write({ alpha: entryFor('alpha') });
    expect(onDisk()).toEqual({ version: 1, servers: { alpha: entryFor('alpha') } });
    expect(warnings).toEqual([]);
  });

  it.each(cases)('on write without a prior read: %s', async (_label, content) => {
    writeRaw(content);
    const cache = store();
    await cache.write({ alpha: entryFor('alpha') });
    expect(onDisk()).toEqual({ version: 1, servers: { alpha: entryFor('alpha') } });
    expect(asideFiles()).toHaveLength(1);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/unusable/);
    await cache.write({ beta: entryFor('beta') });
    expect(warnings).toHaveLength(1);
  });

  it('reports once even when the file could not be set aside at read time', async () => {
    writeRaw('{"version":1,');
    const lock = JSON.stringify({ pid: process.pid, host: hostname(), token: 'x', createdAt: Date.now() });
    fs.writeFileSync(`${file}.lock`, lock);
    const cache = store();
    const first = cache.read();
    expect(first.diagnostics).toHaveLength(1);
    expect(first.diagnostics[0]!.message).toMatch(/replaced on the next write/);
    expect(fs.existsSync(file)).toBe(true);
    expect(cache.read().diagnostics).toEqual([]);

    fs.rmSync(`${file}.lock`);
    await cache.write({ alpha: entryFor('alpha') });
    expect(asideFiles()).toHaveLength(1);
    expect(warnings).toEqual([]);
    expect(onDisk().servers.alpha).toBeDefined();
  });

  it('hands validEntry-triggered diagnostics to the next read', () => {
    writeRaw('not json');
    const cache = store();
    expect(cache.validEntry(definition('alpha'))).toBeUndefined();
    const { diagnostics } = cache.read();
    expect(diagnostics.map((d) => d.code)).toEqual(['cache-corrupt']);
  });

  it('reports a file it cannot read at all, without throwing', () => {
    fs.mkdirSync(file, { recursive: true });
    const cache = store();
    const result = cache.read();
    expect(result.found).toBe(true);
    expect(result.diagnostics.map((d) => d.code)).toEqual(['cache-unreadable']);
    expect(cache.read().diagnostics).toEqual([]);
  });

  it('ignores malformed entries but keeps them in the file', async () => {
    writeRaw(
      JSON.stringify({ version: 1, servers: { bad: 'text', worse: { tools: 'x' }, good: entryFor('good') } }),
    );
    const { servers, diagnostics } = store().read();
    expect(diagnostics).toEqual([]);
    expect(Object.keys(servers)).toEqual(['good']);
    await store().write({ alpha: entryFor('alpha') });
    expect(onDisk().servers.bad).toBe('text');
  });
});

describe('the client capabilities a listing was made with', () => {
  const elicitTool: ToolDescriptor = { name: 'trigger-elicitation-request', inputSchema: { type: 'object' } };
  const rich = () =>
    entryFor('s', { tools: [echoTool, elicitTool], clientCapabilities: ['elicitation', 'sampling'] });
  const poor = () => entryFor('s', { tools: [echoTool], clientCapabilities: [], cachedAt: NOW + 1000 });

  it('a listing made with fewer capabilities never replaces a fresh richer one of the same config', async () => {
    await store().write({ s: rich() });
    await store().write({ s: poor() });
    const entry = store().read().servers.s!;
    expect(entry.tools.map((t) => t.name)).toEqual(['echo', 'trigger-elicitation-request']);
    expect(entry.clientCapabilities).toEqual(['elicitation', 'sampling']);
  });

  it('a richer listing replaces a poorer one; an expired richer entry is replaced by a poorer one', async () => {
    await store().write({ s: poor() });
    await store().write({ s: { ...rich(), cachedAt: NOW + 2000 } });
    expect(store().read().servers.s!.clientCapabilities).toEqual(['elicitation', 'sampling']);
    await store().write({ s: { ...rich(), cachedAt: NOW - DEFAULT_CACHE_MAX_AGE_MS - 1 } });
    await store().write({ s: poor() });
    expect(store().read().servers.s!.clientCapabilities).toEqual([]);
  });

  it('a reader uses an entry only when it was listed with the capabilities the reader declares', async () => {
    await store().write({ s: rich() });
    const reader = store();
    expect(reader.validEntry(definition('s'), NOW, ['sampling', 'elicitation'])).toBeDefined();
    expect(reader.validEntry(definition('s'), NOW, ['elicitation', 'roots', 'sampling'])).toBeUndefined();
    expect(reader.validEntry(definition('s'), NOW, [])).toBeUndefined();
    // Written by a client that does not record them (pi-mcp-adapter): usable as before.
    await store().write({ t: entryFor('t') });
    expect(store().validEntry(definition('t'), NOW, ['elicitation'])).toBeDefined();
  });
});
