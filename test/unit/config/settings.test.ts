// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are config text with ${VAR} references.
// Defaults (applied once, in defaults.ts), settings, and MCP_DIRECT_TOOLS.

import { describe, expect, it } from 'vitest';
import { defaultSettings, SERVER_DEFAULTS, SETTINGS_DEFAULTS } from '../../../src/config/defaults.ts';
import { parseDirectToolsEnv } from '../../../src/config/direct-tools-env.ts';
import type { Diagnostic } from '../../../src/config/types.ts';
import { loadMemory, PROJECT_FILE, server, USER_FILE } from './helpers.ts';

const json = (value: unknown) => JSON.stringify(value);

describe('defaults', () => {
  it('a minimal stdio server gets every default', () => {
    const config = loadMemory({ [USER_FILE]: json({ mcpServers: { s: { command: 'srv' } } }) });
    expect(server(config, 's')).toEqual({
      name: 's',
      source: { file: USER_FILE, kind: 'user', keyPath: 'mcpServers.s' },
      transport: 'stdio',
      command: 'srv',
      args: [],
      env: {},
      inheritEnv: true,
      headers: {},
      lifecycle: 'lazy',
      idleTimeoutMs: 10 * 60_000,
      startupTimeoutMs: 30_000,
      requestTimeoutMs: 60_000,
      healthCheckMs: 30_000,
      protocolVersion: 'auto',
      exposeResources: true,
      directTools: false,
      excludeTools: [],
      exposure: 'deferred',
      toolExposure: [],
      debug: false,
      roots: false,
      configHash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it('eager and keep-alive servers never close when idle, unless told', () => {
    const config = loadMemory({
      [USER_FILE]: json({
        mcpServers: {
          e: { command: 'e', lifecycle: 'eager' },
          k: { command: 'k', lifecycle: 'keep-alive' },
          t: { command: 't', lifecycle: 'keep-alive', idleTimeout: 3 },
        },
      }),
    });
    expect(server(config, 'e').idleTimeoutMs).toBe(0);
    expect(server(config, 'k').idleTimeoutMs).toBe(0);
    expect(server(config, 't').idleTimeoutMs).toBe(180_000);
  });

  it('settings default to the documented values', () => {
    expect(loadMemory({}).settings).toEqual(defaultSettings());
    expect(defaultSettings()).toEqual({
      toolPrefix: 'server',
      protocolVersion: 'auto',
      idleTimeoutMs: 600_000,
      toonEncode: false,
      captureStats: false,
      proxyTool: false,
      outputLimitBytes: 51_200,
      directTools: false,
      requestTimeoutMs: 60_000,
      approveTools: false,
      sampling: true,
      samplingAutoApprove: false,
      elicitation: true,
      roots: false,
      sharedHost: true,
      trace: { enabled: false, maxBytes: 262_144, maxEvents: 10_000 },
    });
    expect(SERVER_DEFAULTS.requestTimeoutMs).toBe(60_000);
    expect(SERVER_DEFAULTS.healthCheckMs).toBe(30_000);
    expect(SETTINGS_DEFAULTS.outputLimitBytes).toBe(50 * 1024);
  });
});

describe('settings', () => {
  it('captureStats: true writes to the agent dir', () => {
    const config = loadMemory({
      [USER_FILE]: json({ settings: { captureStats: true, proxyTool: true, toonEncode: true } }),
    });
    expect(config.settings).toMatchObject({
      captureStats: { path: '/home/u/.pi/agent/mcp-stats.json', flushDelayMs: 500 },
      proxyTool: true,
      toonEncode: true,
    });
  });

  it('captureStats paths: relative to the agent dir, variables interpolated, a missing one turns stats off', () => {
    const relative = loadMemory({
      [USER_FILE]: json({ settings: { captureStats: { path: 'stats/s.json' } } }),
    });
    expect(relative.settings.captureStats).toEqual({
      path: '/home/u/.pi/agent/stats/s.json',
      flushDelayMs: 500,
    });
    const variable = loadMemory(
      { [USER_FILE]: json({ settings: { captureStats: { path: '${STATS_DIR}/s.json', flushDelayMs: 0 } } }) },
      { env: { STATS_DIR: '/var/stats' } },
    );
    expect(variable.settings.captureStats).toEqual({ path: '/var/stats/s.json', flushDelayMs: 0 });
    const missing = loadMemory({
      [USER_FILE]: json({ settings: { captureStats: { path: '${STATS_DIR}/s.json' } } }),
    });
    expect(missing.settings.captureStats).toBe(false);
    expect(missing.diagnostics.map((d) => d.message)).toEqual([
      'settings.captureStats.path uses a variable that is not set; statistics stay off.',
    ]);
  });

  it("pi-mcp-adapter's oauthDir (against the project) and oauthCredentialStore say where its sign-ins are", () => {
    const config = loadMemory({
      [USER_FILE]: json({ settings: { oauthDir: '.pi/mcp-oauth', oauthCredentialStore: 'encrypted-file' } }),
    });
    expect(config.settings.adapterSignIns).toEqual({
      oauthDir: '/work/app/.pi/mcp-oauth',
      oauthCredentialStore: 'encrypted-file',
    });
    expect(config.diagnostics).toEqual([]);
    const bad = loadMemory({ [USER_FILE]: json({ settings: { oauthCredentialStore: 'keyring' } }) });
    expect(bad.settings.adapterSignIns).toBeUndefined();
    expect(bad.diagnostics.map((d) => d.path)).toEqual(['settings.oauthCredentialStore']);
  });

  it("pi-mcp-adapter's autoAuth is honoured without a note; off unless true", () => {
    const on = loadMemory({ [USER_FILE]: json({ settings: { autoAuth: true } }) });
    expect(on.settings.autoAuth).toBe(true);
    expect(on.diagnostics).toEqual([]);
    expect(
      loadMemory({ [USER_FILE]: json({ settings: { autoAuth: false } }) }).settings.autoAuth,
    ).toBeUndefined();
  });

  it('unknown keys inside captureStats are reported', () => {
    const config = loadMemory({ [USER_FILE]: json({ settings: { captureStats: { pth: 'x' } } }) });
    expect(config.diagnostics.map((d) => [d.message, d.fix])).toEqual([
      ['Unknown setting "captureStats.pth" is ignored.', 'Did you mean "path"?'],
    ]);
  });

  it('a settings block that is not an object is reported and ignored', () => {
    const config = loadMemory({ [USER_FILE]: json({ settings: ['x'] }) });
    expect(config.diagnostics.map((d) => d.message)).toEqual([
      '"settings" must be an object; it is ignored.',
    ]);
    expect(config.settings).toEqual(defaultSettings());
  });
});

describe('MCP_DIRECT_TOOLS', () => {
  const parse = (raw: string | undefined) => {
    const diagnostics: Diagnostic[] = [];
    return { spec: parseDirectToolsEnv(raw, diagnostics), diagnostics };
  };

  it('is absent when unset or blank', () => {
    expect(parse(undefined).spec).toBeUndefined();
    expect(parse('  ').spec).toBeUndefined();
  });

  it('understands *, __none__ and lists of server and server/tool', () => {
    expect(parse('*').spec).toEqual({ kind: 'all' });
    expect(parse('__none__').spec).toEqual({ kind: 'none' });
    expect(parse(' github , filesystem/read_file,github,filesystem/read_file ').spec).toEqual({
      kind: 'list',
      servers: ['github'],
      tools: [{ server: 'filesystem', tool: 'read_file' }],
    });
    expect(parse('a/b/c').spec).toEqual({ kind: 'list', servers: [], tools: [{ server: 'a', tool: 'b/c' }] });
  });

  it('__none__ mixed with names wins, with a warning', () => {
    const result = parse('github,__none__');
    expect(result.spec).toEqual({ kind: 'none' });
    expect(result.diagnostics.map((d) => d.message)).toEqual([
      'MCP_DIRECT_TOOLS mixes __none__ with other entries; no tool is direct.',
    ]);
  });

  it('reaches settings.directToolsEnv through loadConfig', () => {
    const config = loadMemory(
      { [USER_FILE]: json({ mcpServers: { github: { command: 'g' } } }) },
      { env: { MCP_DIRECT_TOOLS: 'github' } },
    );
    expect(config.settings.directToolsEnv).toEqual({ kind: 'list', servers: ['github'], tools: [] });
    expect(config.diagnostics).toEqual([]);
  });
});

describe('protocolVersion', () => {
  it('a server takes its own, else settings.protocolVersion, else auto', () => {
    const config = loadMemory({
      [USER_FILE]: json({
        settings: { protocolVersion: 'legacy' },
        mcpServers: { a: { command: 'a' }, b: { command: 'b', protocolVersion: '2026-07-28' } },
      }),
    });
    expect(config.settings.protocolVersion).toBe('legacy');
    expect(server(config, 'a').protocolVersion).toBe('legacy');
    expect(server(config, 'b').protocolVersion).toBe('2026-07-28');
    expect(
      server(loadMemory({ [USER_FILE]: json({ mcpServers: { c: { command: 'c' } } }) }), 'c').protocolVersion,
    ).toBe('auto');
  });

  it('an unknown value is an error naming the allowed ones (like every other enum key)', () => {
    const config = loadMemory({
      [USER_FILE]: json({ mcpServers: { a: { command: 'a', protocolVersion: '2025-11-25' } } }),
    });
    const problem = config.diagnostics.find((d) => d.path?.endsWith('protocolVersion'));
    expect(problem?.message).toMatch(/legacy.*auto.*2026-07-28/);
  });
});

describe('the shared host settings (issue 26)', () => {
  it('settings.sharedHost is on unless set false; share is absent (project) unless set', () => {
    const on = loadMemory({ [USER_FILE]: json({ mcpServers: { s: { command: 'srv' } } }) });
    expect(on.settings.sharedHost).toBe(true);
    expect(server(on, 's').share).toBeUndefined();
    expect(SERVER_DEFAULTS.share).toBe('project');
    const off = loadMemory({
      [USER_FILE]: json({
        settings: { sharedHost: false },
        mcpServers: {
          browser: { command: 'srv', share: 'session' },
          docs: { command: 'srv', share: 'user' },
        },
      }),
    });
    expect(off.settings.sharedHost).toBe(false);
    expect(server(off, 'browser').share).toBe('session');
    expect(server(off, 'docs').share).toBe('user');
  });

  it('an unknown share value is reported at its key and the server is not shared wrongly', () => {
    const config = loadMemory({
      [USER_FILE]: json({ mcpServers: { s: { command: 'srv', share: 'everyone' } } }),
    });
    expect(config.diagnostics).toContainEqual(expect.objectContaining({ path: 'mcpServers.s.share' }));
    expect(config.servers.find((d) => d.name === 's')?.share).toBeUndefined();
  });
});

describe('settings.sharedHost in a project file', () => {
  it('may switch it off, not on (servers would outlive the session in a background process)', () => {
    const userOff = loadMemory({
      [USER_FILE]: json({ settings: { sharedHost: false }, mcpServers: {} }),
      [PROJECT_FILE]: json({ settings: { sharedHost: true } }),
    });
    expect(userOff.settings.sharedHost).toBe(false);
    expect(userOff.diagnostics).toContainEqual(
      expect.objectContaining({ code: 'project-setting-ignored', path: 'settings.sharedHost' }),
    );
    // On by default for the user: a project's `true` changes nothing, so nothing is ignored.
    const bothOn = loadMemory({
      [USER_FILE]: json({ mcpServers: {} }),
      [PROJECT_FILE]: json({ settings: { sharedHost: true } }),
    });
    expect(bothOn.settings.sharedHost).toBe(true);
    expect(bothOn.diagnostics.filter((d) => d.code === 'project-setting-ignored')).toEqual([]);
    // A project may keep its servers in its sessions (nothing of it outlives them), by default too.
    for (const user of [{ mcpServers: {} }, { settings: { sharedHost: true }, mcpServers: {} }]) {
      const off = loadMemory({
        [USER_FILE]: json(user),
        [PROJECT_FILE]: json({ settings: { sharedHost: false } }),
      });
      expect(off.settings.sharedHost).toBe(false);
      expect(off.diagnostics.filter((d) => d.code === 'project-setting-ignored')).toEqual([]);
    }
  });
});
