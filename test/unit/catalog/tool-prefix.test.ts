// Per-server toolPrefix (pi-mcp-adapter): overrides settings.toolPrefix for that server's names,
// names stay unique across servers (a clash gets a deterministic hash suffix and a warning, never a
// lost tool), and the cache identity does not change.

import { describe, expect, it } from 'vitest';
import { buildCatalog } from '../../../src/catalog/catalog.ts';
import type { ServerDefinition, ToolPrefix } from '../../../src/config/types.ts';
import type { ToolDescriptor } from '../../../src/ports/mcp.ts';
import { definition } from '../../support/config.ts';
import { loadMemory, server, USER_FILE } from '../config/helpers.ts';

const tools = (...names: string[]): ToolDescriptor[] =>
  names.map((name) => ({ name, description: `${name} does things`, inputSchema: { type: 'object' } }));

function names(
  servers: Array<[Partial<ServerDefinition>, ToolDescriptor[]]>,
  toolPrefix: ToolPrefix = 'server',
) {
  const catalog = buildCatalog(
    servers.map(([def, t]) => ({ definition: definition(def), tools: t })),
    { toolPrefix },
  );
  return {
    names: catalog.entries.map((e) => `${e.server}/${e.tool} → ${e.name}`),
    warnings: catalog.warnings,
  };
}

describe('per-server toolPrefix', () => {
  it('overrides settings.toolPrefix for its server only; every mode', () => {
    const { names: got, warnings } = names(
      [
        [{ name: 'github-mcp', toolPrefix: 'short' }, tools('list_issues')],
        [{ name: 'docs' }, tools('search')],
        [{ name: 'fs', toolPrefix: 'none' }, tools('read_file')],
        [{ name: 'web', toolPrefix: 'mcp' }, tools('fetch')],
        [{ name: 'db', toolPrefix: 'server' }, tools('query')],
      ],
      'none',
    );
    expect(got.sort()).toEqual([
      'db/query → db__query',
      'docs/search → search',
      'fs/read_file → read_file',
      'github-mcp/list_issues → github__list_issues',
      'web/fetch → mcp__web__fetch',
    ]);
    expect(warnings).toEqual([]);
  });

  it('settings.toolPrefix "mcp" names every tool mcp__<server>__<tool>', () => {
    expect(names([[{ name: 'git-hub' }, tools('a')]], 'mcp').names).toEqual(['git-hub/a → mcp__git_hub__a']);
  });

  it('a clash between servers keeps both tools: one keeps the name, the other gets a hash suffix and a warning, in any order', () => {
    const servers: Array<[Partial<ServerDefinition>, ToolDescriptor[]]> = [
      [{ name: 'alpha', toolPrefix: 'none' }, tools('search')],
      [{ name: 'beta', toolPrefix: 'none' }, tools('search')],
      [{ name: 'search-mcp', toolPrefix: 'short' }, tools('x')],
    ];
    const first = names(servers);
    const second = names([...servers].reverse());
    expect(first.names.sort()).toEqual(second.names.sort());
    expect(first.names).toHaveLength(3);
    expect(first.names).toContain('alpha/search → search');
    const beta = first.names.find((n) => n.startsWith('beta/'))!;
    expect(beta).toMatch(/^beta\/search → search_[0-9a-f]{6}$/);
    expect(first.warnings).toEqual([
      `Tool "search" of server "beta" would be named "search" like another tool; registered as "${beta.split(' → ')[1]}".`,
    ]);
  });

  it('config: read per server (an unknown value is an error naming the key), settings accept "mcp", the cache identity is unchanged', () => {
    const entry = { command: 'gh', args: ['serve'] };
    const plain = loadMemory({ [USER_FILE]: JSON.stringify({ mcpServers: { gh: entry } }) });
    const config = loadMemory({
      [USER_FILE]: JSON.stringify({
        settings: { toolPrefix: 'mcp' },
        mcpServers: {
          gh: { ...entry, toolPrefix: 'short', approveTools: true },
          bad: { command: 'b', toolPrefix: 'long' },
        },
      }),
    });
    expect(config.settings.toolPrefix).toBe('mcp');
    expect(server(config, 'gh').toolPrefix).toBe('short');
    expect(server(config, 'gh').configHash).toBe(server(plain, 'gh').configHash);
    expect(config.diagnostics.find((d) => d.path === 'mcpServers.bad.toolPrefix')).toMatchObject({
      level: 'error',
    });
    expect(config.diagnostics.filter((d) => d.path?.startsWith('mcpServers.gh'))).toEqual([]);
  });
});
