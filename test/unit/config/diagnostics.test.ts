// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are config text with ${VAR} references.
// Every diagnostic kind, asserted by its message (and where it points, and the fix).

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DIAGNOSTIC_CODES, formatDiagnostic } from '../../../src/config/diagnostics.ts';
import type { LoadOptions } from '../../../src/config/load.ts';
import type { Diagnostic, LoadedConfig } from '../../../src/config/types.ts';
import {
  CLAUDE_PROJECT_FILE,
  cleanupLayouts,
  fixture,
  layout,
  loadMemory,
  names,
  PROJECT_FILE,
  skippedReason,
  USER_FILE,
} from './helpers.ts';

afterEach(cleanupLayouts);

const json = (value: unknown) => JSON.stringify(value);
const user = (value: unknown) => ({ [USER_FILE]: json(value) });
const servers = (mcpServers: Record<string, unknown>) => user({ mcpServers });

interface Case {
  files?: Record<string, string>;
  options?: Partial<LoadOptions>;
  run?: () => LoadedConfig;
  expected: Partial<Diagnostic> & { message: string };
  /** What else must hold (the rest of the config survived, the server was skipped, ...). */
  also?: (config: LoadedConfig) => void;
}

const cases: Record<keyof typeof DIAGNOSTIC_CODES, Case> = {
  'invalid-json': {
    files: {
      [USER_FILE]: fixture('broken/missing-comma.json'),
      [PROJECT_FILE]: json({ mcpServers: { ok: { command: 'ok' } } }),
    },
    expected: {
      level: 'error',
      file: USER_FILE,
      message: `${USER_FILE} is not valid JSON (line 5, column 7: expected "," (or a closing bracket)); this file is ignored, other files still load.`,
      fix: 'Fix the syntax at line 5 (comments and trailing commas are allowed).',
    },
    also: (config) => expect(names(config)).toEqual(['ok']),
  },
  'invalid-toml': {
    files: { '/home/u/bad.toml': fixture('broken/unterminated.toml') },
    options: { configPath: '/home/u/bad.toml' },
    expected: {
      level: 'error',
      message:
        '/home/u/bad.toml is not valid TOML (line 4, column 1: invalid value); this file is ignored, other files still load.',
      fix: 'Fix the syntax at line 4.',
    },
  },
  'read-error': {
    options: {
      readFile: (path) => {
        if (path === USER_FILE)
          throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
        return undefined;
      },
    },
    expected: {
      level: 'error',
      message: `Cannot read ${USER_FILE} (permission denied); its servers are not loaded.`,
    },
  },
  'config-not-found': {
    options: { configPath: '/nowhere/mcp.json' },
    expected: {
      level: 'warning',
      message: 'The config file given with --mcp-config does not exist: /nowhere/mcp.json.',
      fix: 'Check the path passed to --mcp-config.',
    },
  },
  'invalid-file': {
    files: user({ mcpServers: [{ command: 'x' }], 'mcp-servers': { kept: { command: 'k' } } }),
    expected: {
      level: 'error',
      path: 'mcpServers',
      message: 'mcpServers must be an object of servers by name; it is ignored.',
    },
    also: (config) => {
      expect(names(config)).toEqual(['kept']);
      const top = loadMemory({ [USER_FILE]: '[1, 2]' });
      expect(top.diagnostics[0]?.message).toBe(
        `${USER_FILE} must contain an object at the top level; it is ignored.`,
      );
    },
  },
  'duplicate-key': {
    files: { [USER_FILE]: '{ "mcpServers": { "a": { "command": "first" }, "a": { "command": "second" } } }' },
    expected: {
      level: 'warning',
      path: 'mcpServers.a',
      message: 'Key mcpServers.a appears twice; the last one is used.',
    },
    also: (config) => expect(config.servers[0]?.command).toBe('second'),
  },
  'duplicate-server': {
    files: user({ mcpServers: { a: { command: 'first' } }, 'mcp-servers': { a: { command: 'second' } } }),
    expected: {
      level: 'warning',
      server: 'a',
      path: 'mcp-servers.a',
      message: 'Server "a" is defined in both mcpServers and mcp-servers; the first is used.',
    },
    also: (config) => expect(config.servers[0]?.command).toBe('first'),
  },
  'unknown-key': {
    files: servers({ a: { command: 'a', lifecyle: 'eager' } }),
    expected: {
      level: 'warning',
      server: 'a',
      path: 'mcpServers.a.lifecyle',
      message: 'Server "a": unknown key "lifecyle" is ignored.',
      fix: 'Did you mean "lifecycle"?',
    },
    also: (config) => {
      expect(config.servers[0]?.lifecycle).toBe('lazy');
      const top = loadMemory(user({ mcpServer: {}, settings: { idleTimout: 3 } }));
      expect(top.diagnostics.map((d) => [d.message, d.fix])).toEqual([
        ['Unknown top-level key "mcpServer" is ignored.', 'Did you mean "mcpServers"?'],
        ['Unknown setting "idleTimout" is ignored.', 'Did you mean "idleTimeout"?'],
      ]);
    },
  },
  'ignored-key': {
    files: servers({ a: { command: 'a', headers: { X: 'y' } } }),
    expected: {
      level: 'warning',
      path: 'mcpServers.a.headers',
      message: 'Server "a": "headers" does not apply to a stdio server and is ignored.',
    },
    also: (config) => {
      expect(config.servers[0]?.headers).toEqual({});
      const foreign = loadMemory(servers({ a: { command: 'a', autoApprove: ['t'] } }));
      expect(foreign.diagnostics.map((d) => [d.level, d.message])).toEqual([
        ['info', 'Server "a": "autoApprove" is ignored (tool approval is not handled by this extension).'],
      ]);
    },
  },
  'invalid-server': {
    files: servers({
      a: { command: 'a', lifecycle: 'keepalive' },
      b: { command: 'b', args: ['ok', {}] },
      c: { command: 'c' },
    }),
    expected: {
      level: 'error',
      server: 'a',
      path: 'mcpServers.a.lifecycle',
      message: 'Server "a": lifecycle must be one of "lazy", "eager", "keep-alive", got "keepalive".',
      fix: 'Did you mean "keep-alive"?',
    },
    also: (config) => {
      expect(names(config)).toEqual(['c']);
      expect(skippedReason(config, 'b')).toBe(
        'invalid configuration: args[1] must be a string, got an object',
      );
      expect(config.diagnostics.find((d) => d.server === 'b')?.path).toBe('mcpServers.b.args[1]');
    },
  },
  'command-and-url': {
    files: servers({ a: { command: 'a', url: 'https://example.com/mcp' } }),
    expected: {
      level: 'error',
      path: 'mcpServers.a',
      message: 'Server "a": both "command" (stdio) and "url" (http) are set; a server uses one transport.',
      fix: 'Keep "command" for a local process or "url" for a remote server, and remove the other.',
    },
  },
  'missing-transport': {
    files: servers({ a: { args: ['x'], description: 'no command' } }),
    expected: {
      level: 'error',
      message:
        'Server "a": neither "command" (stdio) nor "url" (http/sse) is set, and no server of that name is defined elsewhere to override.',
    },
    also: (config) => {
      expect(config.skipped.map((s) => s.name)).toEqual(['a']);
      const typed = loadMemory(servers({ b: { type: 'http', command: 'x' }, c: { type: 'sse' } }));
      expect(typed.diagnostics.map((d) => d.message)).toEqual([
        'Server "b": type is "http" but "url" is missing.',
        'Server "c": type is "sse" but "url" is missing.',
      ]);
    },
  },
  'conflicting-keys': {
    files: servers({ a: { url: 'https://a.example/mcp', serverUrl: 'https://b.example/mcp' } }),
    expected: { level: 'warning', message: 'Server "a": both "url" and "serverUrl" are set; "url" is used.' },
    also: (config) => expect(config.servers[0]?.url).toBe('https://a.example/mcp'),
  },
  'compat-key': {
    files: servers({ a: { command: 'a', directTools: 'search', pluginDataDir: '/plugins/a' } }),
    expected: {
      level: 'info',
      message:
        'Server "a": "directTools" (pi-mcp-adapter) is "search": read as false (tools are found and loaded through ToolSearch).',
    },
    also: (config) => {
      expect(config.servers.map((s) => [s.name, s.directTools])).toEqual([['a', false]]);
      expect(config.diagnostics.map((d) => d.path)).toEqual([
        'mcpServers.a.directTools',
        'mcpServers.a.pluginDataDir',
      ]);
    },
  },
  'vscode-inputs': {
    files: user({ inputs: [{ id: 'k', type: 'promptString' }], servers: { a: { command: 'a' } } }),
    expected: {
      level: 'info',
      message: '"inputs" (VS Code prompted values) are not supported and are ignored.',
    },
  },
  'invalid-imports': {
    files: user({ imports: { cursor: true } }),
    expected: {
      level: 'error',
      path: 'imports',
      message: '"imports" must be a list of client names; it is ignored.',
    },
  },
  'unknown-import': {
    files: user({ imports: ['vs-code', 'curser', 'atom'] }),
    expected: {
      level: 'warning',
      path: 'imports[0]',
      message: 'Unknown import "vs-code" is ignored.',
      fix: 'Did you mean "vscode"?',
    },
    also: (config) =>
      expect(config.diagnostics.map((d) => d.fix)).toEqual([
        'Did you mean "vscode"?',
        'Did you mean "cursor"?',
        'Known imports: cursor, claude-code, claude-desktop, codex, windsurf, vscode, opencode.',
      ]),
  },
  'import-shadowed': {
    files: {
      ...user({ imports: ['cursor'], mcpServers: { playwright: { command: 'mine' } } }),
      '/home/u/.cursor/mcp.json': fixture('cursor/mcp.json'),
    },
    options: { env: { SUPABASE_ACCESS_TOKEN: 'tok-1234' } },
    expected: {
      level: 'info',
      server: 'playwright',
      message: `Server "playwright" from cursor (/home/u/.cursor/mcp.json) is not imported: the name is already defined in ${USER_FILE}.`,
    },
  },
  'server-overridden': {
    files: {
      ...servers({ a: { command: 'a' } }),
      [PROJECT_FILE]: json({ mcpServers: { a: { exposure: 'direct' } } }),
    },
    expected: { level: 'info', message: `Server "a" from ${USER_FILE} is adjusted by ${PROJECT_FILE}.` },
  },
  'project-override-ignored': {
    files: {
      [USER_FILE]: json({ mcpServers: { a: { command: 'a' } } }),
      [PROJECT_FILE]: json({ mcpServers: { a: { args: ['x'] } } }),
    },
    expected: {
      level: 'warning',
      file: PROJECT_FILE,
      path: 'mcpServers.a.args',
      server: 'a',
      message: `mcpServers.a.args is ignored: a project file may change only enabled, exposure, toolExposure of the server "a" defined in ${USER_FILE}.`,
      fix: 'Give the project its own server under another name (with "command" or "url"), or change the user file.',
    },
  },
  'project-setting-ignored': {
    files: { [PROJECT_FILE]: json({ settings: { autoAuth: true } }) },
    expected: {
      level: 'warning',
      file: PROJECT_FILE,
      path: 'settings.autoAuth',
      message: 'settings.autoAuth is ignored: a project may switch it off, not on.',
      fix: 'Set it in your user file (~/.pi/agent/mcp.json) if you want it.',
    },
  },
  'project-server-not-allowed': {
    files: { [CLAUDE_PROJECT_FILE]: json({ mcpServers: { p: { command: 'p' } } }) },
    options: { projectConsent: () => false },
    expected: {
      level: 'warning',
      file: CLAUDE_PROJECT_FILE,
      message: `Not started, not allowed for this project yet: p (from ${CLAUDE_PROJECT_FILE}).`,
      fix: 'Allow it when Pi asks at start (terminal UI), with /mcp allow p in Pi, or run: pi-mcp-actors allow p --cwd /work/app (or list the folder in "trustedProjectFolders" of your user settings, or start Pi with --approve).',
    },
  },
  'untrusted-project': {
    files: { [PROJECT_FILE]: json({ mcpServers: { p: { command: 'p' } } }) },
    options: { projectTrusted: false },
    expected: {
      level: 'info',
      message: `${PROJECT_FILE} is not applied because the project is not trusted. Servers not applied: p.`,
    },
  },
  'invalid-server-name': {
    files: servers({ '': { command: 'x' }, ok: { command: 'ok' } }),
    expected: {
      level: 'error',
      path: 'mcpServers[""]',
      message: 'A server has an empty name; it is skipped.',
      fix: 'Give the server a name: "mcpServers": { "my-server": { … } }.',
    },
    also: (config) => expect(names(config)).toEqual(['ok']),
  },
  'missing-variable': {
    files: servers({
      gh: { command: 'npx', env: { GITHUB_TOKEN: '${GITHUB_TOKEN}' } },
      other: { command: 'o' },
    }),
    expected: {
      level: 'error',
      server: 'gh',
      path: 'mcpServers.gh.env.GITHUB_TOKEN',
      message:
        'Server "gh": ${GITHUB_TOKEN} in env.GITHUB_TOKEN is not set, so the server is skipped rather than started with an empty value.',
      fix: 'Set GITHUB_TOKEN in the environment, or give a default: ${GITHUB_TOKEN:-value}.',
    },
    also: (config) => {
      expect(names(config)).toEqual(['other']);
      expect(skippedReason(config, 'gh')).toBe(
        'environment variable GITHUB_TOKEN (used in env.GITHUB_TOKEN) is not set',
      );
      const bearer = loadMemory(servers({ s: { url: 'https://s.example/mcp', bearerTokenEnv: 'S_TOKEN' } }));
      expect(bearer.diagnostics[0]?.message).toBe(
        'Server "s": bearerTokenEnv names S_TOKEN, which is not set, so the server is skipped.',
      );
    },
  },
  'unsupported-variable': {
    files: servers({ p: { command: 'p', env: { KEY: '${input:api-key}' } } }),
    expected: {
      level: 'error',
      message: 'Server "p": ${input:api-key} in env.KEY cannot be resolved here, so the server is skipped.',
      fix: "VS Code's prompted inputs are not available: put the value in an environment variable and write ${NAME}.",
    },
  },
  'invalid-url': {
    files: servers({ a: { url: 'ftp://files.example/mcp' }, b: { url: '${HOST:-not a url}' } }),
    expected: { level: 'error', server: 'a', message: 'Server "a": url is not an http(s) URL.' },
    also: (config) => expect(config.skipped.map((s) => s.name)).toEqual(['a', 'b']),
  },
  'invalid-ca-file': {
    files: {
      ...servers({
        a: { url: 'https://a.example/mcp', caFile: '~/certs/missing.pem' },
        b: { url: 'https://b.example/mcp', caFile: '/certs/not-pem.pem' },
        ok: { url: 'https://ok.example/mcp' },
      }),
      '/certs/not-pem.pem': 'not a certificate',
    },
    expected: {
      level: 'error',
      server: 'a',
      file: USER_FILE,
      path: 'mcpServers.a.caFile',
      message: 'Server "a": caFile /home/u/certs/missing.pem does not exist, so the server is skipped.',
      fix: 'Point "caFile" at the PEM file of the CA that signed the server’s certificate.',
    },
    also: (config) => {
      expect(names(config)).toEqual(['ok']);
      expect(skippedReason(config, 'b')).toBe('caFile /certs/not-pem.pem holds no PEM certificate');
    },
  },
  'invalid-setting': {
    files: user({ settings: { toolPrefix: 'servers', outputLimitBytes: '50k' } }),
    expected: {
      level: 'error',
      path: 'settings.toolPrefix',
      message:
        'settings.toolPrefix must be one of "server", "short", "none", "mcp", got "servers"; this value is ignored.',
      fix: 'Did you mean "server"?',
    },
    also: (config) => expect(config.settings.toolPrefix).toBe('server'),
  },
  'invalid-direct-tools-env': {
    options: { env: { MCP_DIRECT_TOOLS: 'github/,/x' } },
    expected: {
      level: 'warning',
      message: 'MCP_DIRECT_TOOLS entry "github/" is not "server" or "server/tool"; it is ignored.',
    },
  },
  'unknown-server': {
    files: servers({ github: { command: 'g' } }),
    options: { env: { MCP_DIRECT_TOOLS: 'github,gihtub/search' } },
    expected: {
      level: 'warning',
      message: 'MCP_DIRECT_TOOLS names server "gihtub", which is not configured.',
    },
  },
  'invalid-pi-servers': {
    options: { piServers: 'not servers' },
    expected: {
      level: 'warning',
      message: "Pi's list of MCP servers has an unexpected shape and is ignored.",
    },
  },
  'internal-error': {
    files: servers({ fine: { command: 'f' } }),
    options: {
      piServers: {
        broken: {
          get command(): string {
            throw new Error('getter exploded');
          },
        },
      },
    },
    expected: {
      level: 'error',
      server: 'broken',
      message: 'Server "broken" could not be read: getter exploded.',
    },
    also: (config) => {
      expect(names(config)).toEqual(['fine']);
      const whole = loadMemory(
        {},
        {
          piServers: {
            get boom(): unknown {
              throw new Error('boom');
            },
          },
        },
      );
      expect(whole.diagnostics.map((d) => d.message)).toEqual([
        'The MCP configuration could not be loaded: boom.',
      ]);
    },
  },
};

describe('diagnostics', () => {
  for (const [code, testCase] of Object.entries(cases)) {
    it(code, () => {
      const config = testCase.run?.() ?? loadMemory(testCase.files ?? {}, testCase.options);
      const found = config.diagnostics.filter((d) => d.code === code);
      expect(found.length, JSON.stringify(config.diagnostics, null, 2)).toBeGreaterThan(0);
      expect(found[0]).toMatchObject({ ...testCase.expected, code });
      expect(found[0]?.level).toBe(
        testCase.expected.level ?? DIAGNOSTIC_CODES[code as keyof typeof DIAGNOSTIC_CODES][0],
      );
      testCase.also?.(config);
    });
  }

  it('covers every documented code', () => {
    expect(Object.keys(cases).sort()).toEqual(Object.keys(DIAGNOSTIC_CODES).sort());
  });

  it('a directory where a file should be is a read error (real filesystem)', () => {
    const l = layout();
    mkdirSync(join(l.agentDir, 'mcp.json'), { recursive: true });
    expect(l.load().diagnostics.map((d) => d.message)).toEqual([
      `Cannot read ${join(l.agentDir, 'mcp.json')} (it is a directory); its servers are not loaded.`,
    ]);
  });

  it('formatDiagnostic prints level, place, message and fix on one line', () => {
    const config = loadMemory(servers({ a: { command: 'a', lifecycle: 'keepalive' } }));
    expect(formatDiagnostic(config.diagnostics[0]!)).toBe(
      `error ${USER_FILE} mcpServers.a.lifecycle: Server "a": lifecycle must be one of "lazy", "eager", "keep-alive", got "keepalive". Did you mean "keep-alive"?`,
    );
  });

  it('never puts a secret value into a message', () => {
    const config = loadMemory(
      servers({
        a: { url: 'https://a.example/mcp', bearerToken: 12345678 },
        b: { command: 'b', env: { TOKEN: { nested: 'sekrit-value-1' } } },
        c: { url: 'https://c.example/mcp', headers: { Authorization: 'Bearer ${MISSING} sekrit-value-2' } },
      }),
    );
    const text = JSON.stringify(config);
    expect(text).not.toContain('12345678');
    expect(text).not.toContain('sekrit-value-1');
    expect(JSON.stringify(config.diagnostics)).not.toContain('sekrit-value-2');
    expect(config.servers).toEqual([]);
  });
});
