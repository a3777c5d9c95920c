// biome-ignore-all lint/suspicious/noTemplateCurlyInString: config text with ${VAR} references.
// Configs written for the two other programs, read by our loader: every `mcp.json` example in
// pi-mcp-adapter 2.36.0's README and in Pi 1.5.2's docs (both from npm) loads with every server
// kept; every key their own sources declare is either ours or in the compatibility table; and the
// cache identity of an entry is exactly the one pi-mcp-adapter computes (its own function).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTER_DIR, provisionAdapter } from '../../bench/support/provision.ts';
import { piPackageDir } from '../../scripts/pi-paths.mjs';
import { configHash } from '../../src/catalog/cache.ts';
import { FOREIGN_CONFIG_KEYS } from '../../src/config/compat.ts';
import { loadConfig } from '../../src/config/load.ts';
import { compatDisposition } from '../../src/config/reference.ts';
import type { LoadedConfig } from '../../src/config/types.ts';
import { ensurePi } from '../e2e/harness/ensure-pi.ts';

interface Sample {
  source: string;
  config: Record<string, any>;
}

let root: string;
let samples: Sample[];
let computeServerHash: (entry: unknown, env: Record<string, string | undefined>) => string;

/** The ```json blocks of a Markdown file that hold an `mcpServers` object. */
function jsonSamples(file: string, label: string): Sample[] {
  const out: Sample[] = [];
  let block: string[] | undefined;
  let json = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const fence = /^\s*```(\w*)/.exec(line);
    if (fence && block === undefined) {
      block = [];
      json = fence[1] === 'json' || fence[1] === 'jsonc';
    } else if (fence && block !== undefined) {
      const text = block.join('\n');
      if (json && text.includes('"mcpServers"')) out.push({ source: label, config: JSON.parse(text) });
      block = undefined;
    } else block?.push(line);
  }
  return out;
}

/** Every `${NAME}` a text mentions, set to a value. */
function envFor(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const match of text.matchAll(/\$\{(\w+)\}|\$env:(\w+)|\{env:(\w+)\}/g))
    env[(match[1] ?? match[2] ?? match[3])!] = 'value';
  return env;
}

/**
 * A sample as the user file (where both programs' users write them), over an imported user-level file
 * that defines each of its names (for overrides: a project's may change only enabled / exposure /
 * toolExposure, see docs/security.md).
 */
function loadSample(sample: Sample, index: number): { config: LoadedConfig; names: string[] } {
  const dir = join(root, `sample-${index}`);
  const home = join(dir, 'home');
  const project = join(dir, 'project');
  mkdirSync(join(home, '.pi', 'agent'), { recursive: true });
  mkdirSync(join(home, '.cursor'), { recursive: true });
  mkdirSync(project, { recursive: true });
  const names = Object.keys(sample.config.mcpServers ?? {});
  const base = Object.fromEntries(names.map((name) => [name, { command: 'base-server' }]));
  writeFileSync(join(home, '.cursor', 'mcp.json'), JSON.stringify({ mcpServers: base }));
  const imports = [...(Array.isArray(sample.config.imports) ? sample.config.imports : []), 'cursor'];
  writeFileSync(join(home, '.pi', 'agent', 'mcp.json'), JSON.stringify({ ...sample.config, imports }));
  const config = loadConfig({
    agentDir: join(home, '.pi', 'agent'),
    cwd: project,
    homeDir: home,
    env: { HOME: home, ...envFor(JSON.stringify(sample.config)) },
    projectTrusted: true,
    platform: 'linux',
  });
  return { config, names };
}

/** The keys an interface of pi-mcp-adapter's types.ts declares (top-level members only). */
function interfaceKeys(source: string, name: string): string[] {
  const start = source.indexOf(`export interface ${name} {`);
  const keys: string[] = [];
  let depth = 0;
  for (const line of source.slice(start).split('\n').slice(1)) {
    if (depth === 0 && /^\}/.test(line)) break;
    const key = depth === 0 ? /^\s{2}(\w+)\??:/.exec(line)?.[1] : undefined;
    if (key) keys.push(key);
    depth += (line.match(/[{(]/g) ?? []).length - (line.match(/[})]/g) ?? []).length;
  }
  return keys;
}

beforeAll(async () => {
  await Promise.all([ensurePi(), provisionAdapter()]);
  root = mkdtempSync(join(tmpdir(), 'foreign-configs-'));
  samples = [
    ...jsonSamples(join(ADAPTER_DIR, 'README.md'), 'pi-mcp-adapter README'),
    ...jsonSamples(join(piPackageDir, 'docs', 'mcp.md'), 'Pi docs/mcp.md'),
    ...jsonSamples(join(piPackageDir, 'docs', 'extensions.md'), 'Pi docs/extensions.md'),
  ];
  ({ computeServerHash } = await import(join(ADAPTER_DIR, 'metadata-cache.ts')));
}, 10 * 60_000);

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('configs of pi-mcp-adapter and Pi built-in MCP', () => {
  it('finds the examples of both programs', () => {
    expect(samples.filter((s) => s.source.startsWith('pi-mcp-adapter')).length).toBeGreaterThanOrEqual(10);
    expect(samples.filter((s) => s.source.startsWith('Pi')).length).toBeGreaterThanOrEqual(5);
  });

  it('every example loads with every server kept, and nothing worse than info', () => {
    samples.forEach((sample, index) => {
      const { config, names } = loadSample(sample, index);
      const where = `${sample.source}: ${JSON.stringify(sample.config)}`;
      const kept = config.servers.map((s) => s.name);
      const disabled = config.skipped
        .filter((s) => s.reason === 'disabled in the configuration')
        .map((s) => s.name);
      expect([...kept, ...disabled].sort(), where).toEqual([...names].sort());
      expect(
        disabled.every((name) => sample.config.mcpServers[name].enabled === false),
        where,
      ).toBe(true);
      expect(
        config.diagnostics.filter((d) => d.level !== 'info'),
        where,
      ).toEqual([]);
    });
  });

  it("pi-mcp-adapter's rmcp-mux example is a socket server, its inheritEnv override is honoured", () => {
    const index = samples.findIndex((s) => JSON.stringify(s.config).includes('"socket"'));
    const { config } = loadSample(samples[index]!, index);
    const memory = config.servers.find((s) => s.name === 'memory');
    expect(memory).toMatchObject({
      transport: 'socket',
      socket: expect.stringMatching(/\/\.rmcp-servers\/rmcp-mux\/sockets\/memory\.sock$/),
    });
    expect(config.diagnostics.filter((d) => d.code === 'compat-key')).toEqual([]);
    const overrideIndex = samples.findIndex((s) => JSON.stringify(s.config).includes('"inheritEnv":false'));
    const override = loadSample(samples[overrideIndex]!, overrideIndex).config;
    expect(override.servers.find((s) => s.name === 'acme_tools__local')?.inheritEnv).toBe(false);
  });

  it("every key pi-mcp-adapter's sources declare is ours or in the compatibility table", () => {
    const types = readFileSync(join(ADAPTER_DIR, 'types.ts'), 'utf8');
    const declared = {
      server: interfaceKeys(types, 'ServerEntry'),
      oauth: interfaceKeys(types, 'OAuthConfig'),
      settings: interfaceKeys(types, 'McpSettings'),
      topLevel: interfaceKeys(types, 'McpConfig'),
    };
    expect(declared.server).toContain('directTools');
    for (const [section, keys] of Object.entries(declared) as Array<[keyof typeof declared, string[]]>) {
      for (const key of keys) {
        expect(FOREIGN_CONFIG_KEYS[section]['pi-mcp-adapter'], `${section}.${key}`).toContain(key);
        expect(compatDisposition(section, key), `${section}.${key}`).toBeDefined();
      }
    }
  });

  it('the cache identity of an entry is the one pi-mcp-adapter computes', () => {
    // pi-mcp-adapter expands `~` with os.homedir(), as our loader does in Pi.
    const env = { HOME: homedir(), TOKEN: 'tkn', HOST: 'mcp.example.com', DIR: 'work' };
    const entries: Record<string, unknown>[] = [
      { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
      {
        command: 'node',
        args: ['server.js', 8080, '--dir', '${DIR}'],
        env: { A: '${TOKEN}', B: '!echo x', C: '!!bang' },
      },
      { command: 'node', cwd: '~/projects/${DIR}', inheritEnv: false, lifecycle: 'eager', debug: true },
      { url: 'https://${HOST}/mcp', headers: { Authorization: 'Bearer ${TOKEN}' }, exposeResources: false },
      {
        url: 'https://mcp.example.com/mcp',
        bearerTokenEnv: 'TOKEN',
        includeTools: ['get_*'],
        excludeTools: ['x'],
      },
      {
        url: 'https://mcp.example.com/mcp',
        auth: 'bearer',
        bearerToken: '${TOKEN}',
        protocolVersion: 'auto',
      },
      {
        url: 'https://mcp.example.com/mcp',
        requestHeadersCommand: { command: 'get-headers', args: ['--for', '${HOST}'], timeoutMs: 500 },
        auth: false,
      },
      ...samples.flatMap((s) =>
        Object.values(s.config.mcpServers ?? {}).filter(
          (e: any) => e.command !== undefined || e.url !== undefined,
        ),
      ),
    ] as Record<string, unknown>[];
    entries.forEach((entry, index) => {
      const config = loadConfig({
        agentDir: '/home/u/.pi/agent',
        cwd: '/work/app',
        homeDir: homedir(),
        env: { ...env, ...envFor(JSON.stringify(entry)) },
        projectTrusted: false,
        readFile: (file) =>
          file === '/home/u/.pi/agent/mcp.json' ? JSON.stringify({ mcpServers: { s: entry } }) : undefined,
      });
      const definition = config.servers.find((s) => s.name === 's');
      expect(definition, `${index}: ${JSON.stringify(config.diagnostics)}`).toBeDefined();
      const theirs = computeServerHash(entry, { ...env, ...envFor(JSON.stringify(entry)) });
      expect(configHash(definition!), `${index}: ${JSON.stringify(entry)}`).toBe(theirs);
    });
  });
});
