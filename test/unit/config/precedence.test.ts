// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are config text with ${VAR} references.
// Which source wins, how overrides merge, and how settings combine.

import { afterEach, describe, expect, it } from 'vitest';
import {
  CLAUDE_PROJECT_FILE,
  cleanupLayouts,
  fixture,
  layout,
  loadMemory,
  names,
  PROJECT_FILE,
  server,
  skippedReason,
  USER_FILE,
  withCode,
} from './helpers.ts';

afterEach(cleanupLayouts);

const json = (value: unknown) => JSON.stringify(value);

describe('servers', () => {
  it('imports add only names the user file does not define', () => {
    const config = loadMemory({
      [USER_FILE]: json({
        imports: ['cursor'],
        mcpServers: { context7: { url: 'https://mine.example/mcp' } },
      }),
      '/home/u/.cursor/mcp.json': fixture('cursor/mcp.json'),
    });
    expect(server(config, 'context7').url).toBe('https://mine.example/mcp');
    expect(server(config, 'context7').source.kind).toBe('user');
    expect(server(config, 'playwright').source.importedFrom).toBe('cursor');
    expect(withCode(config, 'import-shadowed').map((d) => d.server)).toEqual(['context7']);
  });

  it('the first import to define a name wins, in the order of `imports`', () => {
    const files = {
      '/home/u/.cursor/mcp.json': json({ mcpServers: { shared: { command: 'from-cursor' } } }),
      '/home/u/.codeium/windsurf/mcp_config.json': json({
        mcpServers: { shared: { command: 'from-windsurf' } },
      }),
    };
    const cursorFirst = loadMemory({ ...files, [USER_FILE]: json({ imports: ['cursor', 'windsurf'] }) });
    expect(server(cursorFirst, 'shared').command).toBe('from-cursor');
    const windsurfFirst = loadMemory({ ...files, [USER_FILE]: json({ imports: ['windsurf', 'cursor'] }) });
    expect(server(windsurfFirst, 'shared').command).toBe('from-windsurf');
  });

  it('project .mcp.json overrides user and imports; .pi/mcp.json overrides .mcp.json', () => {
    const config = loadMemory({
      [USER_FILE]: json({
        imports: ['cursor'],
        mcpServers: { a: { command: 'user-a' }, b: { command: 'user-b' } },
      }),
      '/home/u/.cursor/mcp.json': json({ mcpServers: { c: { command: 'cursor-c' } } }),
      [CLAUDE_PROJECT_FILE]: json({ mcpServers: { a: { command: 'claude-a' }, c: { command: 'claude-c' } } }),
      [PROJECT_FILE]: json({ mcpServers: { a: { command: 'pi-a' } } }),
    });
    expect(config.servers.map((s) => [s.name, s.command, s.source.kind])).toEqual([
      ['a', 'pi-a', 'project'],
      ['b', 'user-b', 'user'],
      ['c', 'claude-c', 'project'],
    ]);
    expect(withCode(config, 'server-overridden').map((d) => d.message)).toEqual([
      `Server "a" from ${USER_FILE} is replaced by the definition in ${CLAUDE_PROJECT_FILE}.`,
      'Server "c" from /home/u/.cursor/mcp.json is replaced by the definition in /work/app/.mcp.json.',
      `Server "a" from ${CLAUDE_PROJECT_FILE} is replaced by the definition in ${PROJECT_FILE}.`,
    ]);
  });

  it("a project entry without command/url overrides only enabled, exposure and toolExposure (Pi's rule)", () => {
    const config = loadMemory(
      { [USER_FILE]: fixture('pi/mcp.json'), [PROJECT_FILE]: fixture('pi/project-override.json') },
      { env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_x_123456' } },
    );
    expect(skippedReason(config, 'github')).toBe('disabled in the configuration');
    const filesystem = server(config, 'filesystem');
    expect(filesystem.exposure).toBe('direct');
    expect(filesystem.toolExposure).toEqual([{ pattern: 'write_file', exposure: 'hidden' }]);
    // Everything else is still the user's definition.
    expect(filesystem.command).toBe('npx');
    expect(filesystem.source.file).toBe(USER_FILE);
  });

  it('an override can enable a server the user disabled, and `disabled` counts as an override', () => {
    const config = loadMemory({
      [USER_FILE]: json({ mcpServers: { a: { command: 'a', enabled: false }, b: { command: 'b' } } }),
      [PROJECT_FILE]: json({ mcpServers: { a: { enabled: true }, b: { disabled: true } } }),
    });
    expect(names(config)).toEqual(['a']);
    expect(skippedReason(config, 'b')).toBe('disabled in the configuration');
    // The fix points at the entry that disabled it.
    expect(config.skipped[0]?.fix).toBe(`Set "enabled": true at mcpServers.b in ${PROJECT_FILE}.`);
  });

  it("other keys in a project's override are ignored (Pi 1.5's rule), the rest is kept", () => {
    const config = loadMemory({
      [USER_FILE]: json({ mcpServers: { a: { command: 'a', args: ['x'], lifecycle: 'lazy' } } }),
      [PROJECT_FILE]: json({ mcpServers: { a: { lifecycle: 'eager', exposure: 'hidden' } } }),
    });
    expect(server(config, 'a')).toMatchObject({
      command: 'a',
      args: ['x'],
      lifecycle: 'lazy',
      exposure: 'hidden',
    });
  });

  it("other keys in the user file's override of an import are merged key by key (pi-mcp-adapter)", () => {
    const config = loadMemory({
      [USER_FILE]: json({
        imports: ['cursor'],
        mcpServers: { playwright: { lifecycle: 'eager', args: ['y'] } },
      }),
      '/home/u/.cursor/mcp.json': fixture('cursor/mcp.json'),
    });
    expect(server(config, 'playwright')).toMatchObject({ lifecycle: 'eager', args: ['y'] });
  });

  it('an override in the user file applies to an imported server', () => {
    const config = loadMemory({
      [USER_FILE]: json({ imports: ['cursor'], mcpServers: { playwright: { enabled: false } } }),
      '/home/u/.cursor/mcp.json': fixture('cursor/mcp.json'),
    });
    expect(config.skipped.find((s) => s.name === 'playwright')).toMatchObject({
      reason: 'disabled in the configuration',
      source: { importedFrom: 'cursor' },
    });
  });

  it('a broken override skips the server instead of leaving it running', () => {
    const config = loadMemory({
      [USER_FILE]: json({ mcpServers: { a: { command: 'a' } } }),
      [PROJECT_FILE]: json({ mcpServers: { a: { enabled: 'no' } } }),
    });
    expect(names(config)).toEqual([]);
    expect(skippedReason(config, 'a')).toBe(
      'invalid configuration: enabled must be true or false, got a string',
    );
  });

  it('an invalid project definition does not fall back to the user definition', () => {
    const config = loadMemory({
      [USER_FILE]: json({ mcpServers: { a: { command: 'a' } } }),
      [PROJECT_FILE]: json({ mcpServers: { a: { command: 'b', lifecycle: 'sometimes' } } }),
    });
    expect(names(config)).toEqual([]);
    expect(config.skipped[0]?.source.file).toBe(PROJECT_FILE);
  });

  it('servers are sorted by name (code point order) and names are kept as written', () => {
    const config = loadMemory({
      [USER_FILE]: json({
        mcpServers: { zeta: { command: 'z' }, 'My Server.v2': { command: 'm' }, alpha: { command: 'a' } },
      }),
    });
    expect(names(config)).toEqual(['My Server.v2', 'alpha', 'zeta']);
  });

  it('a server named __proto__ is just a server', () => {
    const config = loadMemory({ [USER_FILE]: '{ "mcpServers": { "__proto__": { "command": "p" } } }' });
    expect(names(config)).toEqual(['__proto__']);
    expect(server(config, '__proto__').command).toBe('p');
  });
});

describe('settings', () => {
  it('merge user ← .mcp.json ← .pi/mcp.json per key', () => {
    const config = loadMemory({
      [USER_FILE]: json({ settings: { toolPrefix: 'short', idleTimeout: 15, proxyTool: true } }),
      [CLAUDE_PROJECT_FILE]: json({ settings: { toolPrefix: 'none', outputLimitBytes: 1000 } }),
      [PROJECT_FILE]: json({ settings: { outputLimitBytes: 2000 } }),
    });
    expect(config.settings).toMatchObject({
      toolPrefix: 'none',
      idleTimeoutMs: 15 * 60_000,
      proxyTool: true,
      outputLimitBytes: 2000,
    });
  });

  it("an invalid project value keeps the user's value", () => {
    const config = loadMemory({
      [USER_FILE]: json({ settings: { toolPrefix: 'short' } }),
      [PROJECT_FILE]: json({ settings: { toolPrefix: 'long' } }),
    });
    expect(config.settings.toolPrefix).toBe('short');
  });

  it('settings.idleTimeout is the default for lazy servers only', () => {
    const config = loadMemory({
      [USER_FILE]: json({
        settings: { idleTimeout: 2 },
        mcpServers: {
          lazy: { command: 'l' },
          eager: { command: 'e', lifecycle: 'eager' },
          own: { command: 'o', idleTimeout: 0.5 },
        },
      }),
    });
    expect(server(config, 'lazy').idleTimeoutMs).toBe(120_000);
    expect(server(config, 'eager').idleTimeoutMs).toBe(0);
    expect(server(config, 'own').idleTimeoutMs).toBe(30_000);
  });

  it("imports listed in a project file read that client's project files, never the user's", () => {
    const l = layout({
      'project/.pi/mcp.json': json({ imports: ['cursor'] }),
      'home/.cursor/mcp.json': fixture('cursor/mcp.json'),
      'project/.cursor/mcp.json': json({ mcpServers: { 'project-cursor': { command: 'pc' } } }),
    });
    expect(names(l.load({ env: { SUPABASE_ACCESS_TOKEN: 'x-token' } }))).toEqual(['project-cursor']);
  });
});
