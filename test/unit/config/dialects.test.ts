// Codex and OpenCode keys are translated; their mistakes point at the keys the user wrote.

import { describe, expect, it } from 'vitest';
import { loadMemory, names, server, skippedReason, USER_FILE } from './helpers.ts';

const CODEX = '/home/u/.codex/config.toml';
const OPENCODE = '/home/u/.config/opencode/opencode.json';
const imports = (...list: string[]) => ({ [USER_FILE]: JSON.stringify({ imports: list }) });

describe('Codex', () => {
  it('reports a wrong value at the Codex key', () => {
    const config = loadMemory({
      ...imports('codex'),
      [CODEX]:
        '[mcp_servers.slow]\ncommand = "s"\nstartup_timeout_sec = "20"\n\n[mcp_servers.ok]\ncommand = "o"\n',
    });
    expect(names(config)).toEqual(['ok']);
    expect(config.diagnostics).toMatchObject([
      {
        code: 'invalid-server',
        path: 'mcp_servers.slow.startup_timeout_sec',
        message: 'Server "slow": startup_timeout_sec must be a number of seconds > 0 and ≤ 2147483.',
      },
    ]);
  });

  it('notes unknown Codex keys at info level, with the Codex spelling as the suggestion', () => {
    const config = loadMemory({
      ...imports('codex'),
      [CODEX]: '[mcp_servers.a]\ncommand = "a"\nstartup_timeout = 5\n',
    });
    expect(config.diagnostics).toMatchObject([
      {
        level: 'info',
        code: 'unknown-key',
        message: 'Server "a": unknown key "startup_timeout" is ignored.',
      },
    ]);
    expect(config.diagnostics[0]?.fix).toMatch(/^Did you mean "startup_timeout_(sec|ms)"\?$/);
  });

  it('rejects env_vars that are not variable names', () => {
    const config = loadMemory({
      ...imports('codex'),
      [CODEX]: '[mcp_servers.a]\ncommand = "a"\nenv_vars = ["NOT A NAME"]\n',
    });
    expect(skippedReason(config, 'a')).toBe(
      'invalid configuration: env_vars must be a list of environment variable names',
    );
  });

  it('explicit env wins over a forwarded env_vars entry', () => {
    const config = loadMemory(
      {
        ...imports('codex'),
        [CODEX]: '[mcp_servers.a]\ncommand = "a"\nenv_vars = ["X"]\nenv = { X = "explicit" }\n',
      },
      { env: { X: 'from-environment' } },
    );
    expect(server(config, 'a').env).toEqual({ X: 'explicit' });
  });
});

describe('OpenCode', () => {
  it('suggests "local" or "remote" for a wrong type', () => {
    const config = loadMemory({
      ...imports('opencode'),
      [OPENCODE]: JSON.stringify({ mcp: { a: { type: 'locale', command: ['a'] } } }),
    });
    expect(config.diagnostics).toMatchObject([
      {
        code: 'invalid-server',
        path: 'mcp.a.type',
        message: 'Server "a": type must be "local" or "remote".',
        fix: 'Did you mean "local"?',
      },
    ]);
  });

  it('wants command as a non-empty list', () => {
    const config = loadMemory({
      ...imports('opencode'),
      [OPENCODE]: JSON.stringify({ mcp: { a: { type: 'local', command: [] } } }),
    });
    expect(skippedReason(config, 'a')).toBe(
      'invalid configuration: command must be a non-empty list of strings: ["npx", "-y", "package"]',
    );
  });

  it('oauth: false turns authentication off', () => {
    const config = loadMemory({
      ...imports('opencode'),
      [OPENCODE]: JSON.stringify({
        mcp: { a: { type: 'remote', url: 'https://a.example/mcp', oauth: false } },
      }),
    });
    expect(server(config, 'a').auth).toBe(false);
  });
});

describe('native type spellings', () => {
  it('reads streamable-http and streamableHttp as http, sse as sse', () => {
    const config = loadMemory({
      [USER_FILE]: JSON.stringify({
        mcpServers: {
          a: { type: 'streamable-http', url: 'https://a.example/mcp' },
          b: { type: 'streamableHttp', url: 'https://b.example/mcp' },
          c: { type: 'sse', url: 'https://c.example/sse' },
          d: { type: 'stdio', command: 'd' },
        },
      }),
    });
    expect(config.servers.map((s) => s.transport)).toEqual(['http', 'http', 'sse', 'stdio']);
  });
});
