// biome-ignore-all lint/suspicious/noTemplateCurlyInString: config text with ${VAR} references.
// The start record: a session whose inputs are all unchanged since a start that needed only ToolSearch
// prepares its first request from mcp-start.json; any changed input, or a start that registered or said
// more, loads in full. The bridge runs on a recording PiHost with real config and cache files.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { connectMcp } from '../../src/adapters/mcp/index.ts';
import { bridgePi, type PiBridge } from '../../src/adapters/pi/bridge.ts';
import { START_RECORD_FILE_NAME } from '../../src/adapters/pi/start-record.ts';
import { configHash, createCacheStore } from '../../src/catalog/cache.ts';
import { loadConfig } from '../../src/config/load.ts';
import { stdioFixture } from '../fixtures/servers/spawn.ts';
import { RecordingPi } from '../support/recording-pi.ts';

let root: string;
let agentDir: string;
let project: string;
const bridges: PiBridge[] = [];
const SECRET = 'tok-9f8e7d6c5b4a-secret';

const tool = (name: string, description = `${name} things`) => ({
  name,
  description,
  inputSchema: { type: 'object', properties: {} },
});

function writeUserConfig(config: unknown) {
  writeFileSync(join(agentDir, 'mcp.json'), JSON.stringify(config));
}

const baseEnv = () => ({ PI_CODING_AGENT_DIR: agentDir, API_TOKEN: SECRET });

/** Caches every configured server with these tools (as a connect would have written them). */
async function writeCache(tools: Record<string, ReturnType<typeof tool>[]>, cachedAt = Date.now()) {
  const config = loadConfig({ agentDir, cwd: project, homeDir: root, env: baseEnv(), projectTrusted: true });
  const store = createCacheStore({ file: join(agentDir, 'mcp-cache.json') });
  await store.write(
    Object.fromEntries(
      config.servers.map((def) => [
        def.name,
        { configHash: configHash(def), tools: tools[def.name] ?? [], resources: [], cachedAt },
      ]),
    ),
  );
}

interface Session {
  pi: RecordingPi;
  bridge: PiBridge;
}

/** One Pi session up to its first model request (the record is saved once the request is on its way). */
async function session(
  options: { env?: Record<string, string>; trusted?: boolean; activeTools?: string[] } = {},
): Promise<Session> {
  const pi = new RecordingPi(project, options.trusted ?? true);
  if (options.activeTools) pi.active.push(...options.activeTools);
  const bridge = bridgePi(pi, {
    connector: connectMcp,
    env: { ...baseEnv(), ...options.env },
    homeDir: root,
  });
  bridges.push(bridge);
  await pi.emit('session_start', { reason: 'startup' });
  await pi.emit('agent_start', {});
  await pi.emit('before_provider_request', { payload: {} });
  return { pi, bridge };
}

const recordFile = () => join(agentDir, START_RECORD_FILE_NAME);
const recordText = () => readFileSync(recordFile(), 'utf8');
const recordCount = () => {
  try {
    return Object.keys(JSON.parse(recordText()).records).length;
  } catch {
    return 0;
  }
};
const description = (pi: RecordingPi) => pi.tools.get('ToolSearch')?.description;
const runtimeServers = async (bridge: PiBridge) =>
  ((await bridge.runtime()).actor.getSnapshot().context.config?.servers ?? []).map((s) => s.name).sort();

/** The first session loads and leaves a record; returns its ToolSearch description. */
async function firstSession(options: Parameters<typeof session>[0] = {}) {
  const first = await session(options);
  expect(first.bridge.startedFrom()).toBe('load');
  await vi.waitFor(() => expect(recordCount()).toBeGreaterThan(0), { timeout: 5_000, interval: 10 });
  return description(first.pi);
}

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'pi-mcp-start-record-'));
  agentDir = join(root, 'agent');
  project = join(root, 'project');
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(project, { recursive: true });
  writeUserConfig({
    // The record, not the host, is the subject: a host started as a first request goes out would
    // outlive the test's folder (test/integration/shared-host/host-prestart.test.ts covers that start).
    settings: { sharedHost: false },
    mcpServers: {
      notes: { ...stdioFixture(['--name', 'notes']), env: { TOKEN: '${API_TOKEN}' } },
      files: stdioFixture(['--name', 'files']),
    },
  });
  await writeCache({ notes: [tool('add_note'), tool('list_notes')], files: [tool('read_file')] });
});

afterEach(async () => {
  for (const bridge of bridges.splice(0)) {
    const runtime = await bridge.runtime();
    await runtime.stop();
    runtime.dispose();
  }
  rmSync(root, { recursive: true, force: true });
});

describe('the start record', () => {
  it('an unchanged start registers the same ToolSearch and narrows the active set without loading', async () => {
    const loaded = await firstSession();
    expect(loaded).toContain('add_note');
    const { pi, bridge } = await session();
    expect(bridge.startedFrom()).toBe('record');
    expect(description(pi)).toBe(loaded);
    expect(pi.activeMcp()).toEqual(['ToolSearch']);
    // The runtime, started later, has the whole config and registers the deferred tools.
    expect(await runtimeServers(bridge)).toEqual(['files', 'notes']);
    expect(pi.tools.has('notes__add_note')).toBe(true);
    expect(description(pi)).toBe(loaded);
  });

  it('the config is read once: the runtime uses the texts the start checked, not a later edit', async () => {
    await firstSession();
    const pi = new RecordingPi(project, true);
    const bridge = bridgePi(pi, { connector: connectMcp, env: baseEnv(), homeDir: root });
    bridges.push(bridge);
    await pi.emit('session_start', { reason: 'startup' });
    expect(bridge.startedFrom()).toBe('record');
    writeUserConfig({ mcpServers: { other: stdioFixture(['--name', 'other']) } });
    expect(await runtimeServers(bridge)).toEqual(['files', 'notes']);
  });

  it('holds no secret: environment values and file texts are only in a salted digest', async () => {
    await firstSession();
    expect(recordText()).not.toContain(SECRET);
    expect(recordText()).toContain('API_TOKEN');
  });

  describe('any changed input loads in full, and the new start is remembered', () => {
    const changes: Array<[string, () => Promise<Parameters<typeof session>[0] | undefined>, RegExp?]> = [
      [
        'the user config',
        async () => {
          const config = JSON.parse(readFileSync(join(agentDir, 'mcp.json'), 'utf8'));
          config.mcpServers.extra = stdioFixture(['--name', 'extra']);
          writeUserConfig(config);
          return undefined;
        },
        /extra/,
      ],
      [
        'a project config that did not exist',
        async () => {
          mkdirSync(join(project, '.pi'), { recursive: true });
          writeFileSync(
            join(project, '.pi', 'mcp.json'),
            JSON.stringify({ mcpServers: { local: stdioFixture(['--name', 'local']) } }),
          );
          return undefined;
        },
        /local/,
      ],
      ['an environment value the config uses', async () => ({ env: { API_TOKEN: 'another-token-value-1' } })],
      ['the project trust', async () => ({ trusted: false })],
      [
        "a server's cached tools",
        async () => {
          await writeCache({ notes: [tool('add_note'), tool('archive_notes')], files: [tool('read_file')] });
          return undefined;
        },
        /archive_notes/,
      ],
      [
        'a cache entry that expired',
        async () => {
          await writeCache(
            { notes: [tool('add_note'), tool('list_notes')], files: [tool('read_file')] },
            Date.now() - 8 * 24 * 60 * 60 * 1000,
          );
          return undefined;
        },
      ],
    ];
    for (const [what, change, appears] of changes) {
      it(what, async () => {
        const before = await firstSession();
        const options = await change();
        const next = await session(options ?? {});
        expect(next.bridge.startedFrom()).toBe('load');
        if (appears) expect(description(next.pi)).toMatch(appears);
        if (appears) expect(before).not.toMatch(appears);
        // The changed start is remembered in turn: the one after it comes from the record.
        await vi.waitFor(
          async () => {
            const again = new RecordingPi(project, options?.trusted ?? true);
            const bridge = bridgePi(again, {
              connector: connectMcp,
              env: { ...baseEnv(), ...options?.env },
              homeDir: root,
            });
            bridges.push(bridge);
            await again.emit('session_start', {});
            expect(bridge.startedFrom()).toBe('record');
            expect(description(again)).toBe(description(next.pi));
          },
          { timeout: 5_000, interval: 50 },
        );
      });
    }
  });

  it('a cache rewritten with the same entries (a server connected again) still matches', async () => {
    const loaded = await firstSession();
    await writeCache(
      { notes: [tool('add_note'), tool('list_notes')], files: [tool('read_file')] },
      Date.now() + 1_000,
    );
    const { pi, bridge } = await session();
    expect(bridge.startedFrom()).toBe('record');
    expect(description(pi)).toBe(loaded);
  });

  it('an untouched cache whose entries have since expired loads in full', async () => {
    await firstSession();
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 8 * 24 * 60 * 60 * 1000);
      const { bridge } = await session();
      expect(bridge.startedFrom()).toBe('load');
    } finally {
      vi.useRealTimers();
    }
  });

  describe('a start that needs more than ToolSearch is not remembered', () => {
    it('a config warning is told at every start', async () => {
      writeUserConfig({
        mcpServers: { notes: { ...stdioFixture(['--name', 'notes']), lifecycle: 'sometimes' } },
      });
      for (let i = 0; i < 2; i++) {
        const { pi, bridge } = await session();
        expect(bridge.startedFrom()).toBe('load');
        expect(pi.notifications.map((n) => n.message).join('\n')).toMatch(/lifecycle/);
      }
      expect(recordCount()).toBe(0);
    });

    it('direct tools', async () => {
      writeUserConfig({ mcpServers: { notes: { ...stdioFixture(['--name', 'notes']), directTools: true } } });
      await writeCache({ notes: [tool('add_note')] });
      for (let i = 0; i < 2; i++) {
        const { pi, bridge } = await session();
        expect(bridge.startedFrom()).toBe('load');
        expect(pi.activeMcp()).toEqual(['ToolSearch', 'notes__add_note']);
      }
      expect(recordCount()).toBe(0);
    });

    it("Pi's codemode tool is on (every MCP tool is registered for its scripts)", async () => {
      await firstSession();
      const { pi, bridge } = await session({ activeTools: ['codemode'] });
      expect(bridge.startedFrom()).toBe('load');
      expect(pi.tools.has('notes__add_note')).toBe(true);
    });
  });

  it('an unreadable record is ignored and replaced', async () => {
    writeFileSync(recordFile(), '{"format":1,"salt":');
    const loaded = await firstSession();
    const { pi, bridge } = await session();
    expect(bridge.startedFrom()).toBe('record');
    expect(description(pi)).toBe(loaded);
  });
});
