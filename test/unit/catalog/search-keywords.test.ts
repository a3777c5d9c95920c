// searchKeywords (pi-mcp-adapter): extra words ToolSearch matches for the tools a pattern names,
// never shown to the model (the turn-one ToolSearch description does not change).

import { describe, expect, it } from 'vitest';
import { buildCatalog } from '../../../src/catalog/catalog.ts';
import { searchIndexOf } from '../../../src/catalog/search.ts';
import type { ServerDefinition } from '../../../src/config/types.ts';
import type { ToolDescriptor } from '../../../src/ports/mcp.ts';
import { describeSession } from '../../../src/session/describe-session.ts';
import { definition, loadedConfig } from '../../support/config.ts';
import { loadMemory, server, USER_FILE } from '../config/helpers.ts';

const GITHUB_TOOLS: ToolDescriptor[] = [
  {
    name: 'search_code',
    description: 'Search for code across repositories.',
    inputSchema: { type: 'object' },
  },
  { name: 'create_issue', description: 'Open a new issue in a repository.', inputSchema: { type: 'object' } },
];
const OTHER_TOOLS: ToolDescriptor[] = [
  { name: 'read_page', description: 'Read a wiki page.', inputSchema: { type: 'object' } },
];

function catalogWith(keywords?: Record<string, string[]>) {
  const github = definition({ name: 'github', ...(keywords ? { searchKeywords: keywords } : {}) });
  return buildCatalog(
    [
      { definition: github, tools: GITHUB_TOOLS },
      { definition: definition({ name: 'wiki' }), tools: OTHER_TOOLS },
    ],
    { toolPrefix: 'server' },
  );
}

const found = (keywords: Record<string, string[]> | undefined, query: string) =>
  searchIndexOf(catalogWith(keywords))
    .search(query, 10)
    .map((h) => h.name);

describe('searchKeywords', () => {
  it('a query that only matches a keyword finds the tool (original name, glob, or pi-mcp-adapter name)', () => {
    expect(found(undefined, 'sourcegraph')).toEqual([]);
    expect(found(undefined, 'ripgrep')).toEqual([]);
    expect(found({ search_code: ['sourcegraph'] }, 'sourcegraph')).toEqual(['github__search_code']);
    expect(found({ 'search_*': ['ripgrep'] }, 'ripgrep')).toEqual(['github__search_code']);
    expect(found({ github_search_code: ['sourcegraph'] }, 'sourcegraph')).toEqual(['github__search_code']);
    expect(found({ create_issue: ['sourcegraph'] }, 'sourcegraph')).toEqual(['github__create_issue']);
  });

  it('"*" adds a word to every tool of the server, and no other server', () => {
    expect(found(undefined, 'octocat')).toEqual([]);
    expect(found({ '*': ['octocat'] }, 'octocat').sort()).toEqual([
      'github__create_issue',
      'github__search_code',
    ]);
  });

  it('keywords are kept on the catalog entry only, and the turn-one ToolSearch description is unchanged', () => {
    const with_ = catalogWith({ '*': ['octocat'], search_code: ['grep'] });
    expect(with_.byName.get('github__search_code')?.keywords).toEqual(['octocat', 'grep']);
    expect(with_.byName.get('wiki__read_page')?.keywords).toBeUndefined();
    const cached = {
      github: { tools: GITHUB_TOOLS, resources: [] },
      wiki: { tools: OTHER_TOOLS, resources: [] },
    } as never;
    const servers = (keywords?: Record<string, string[]>): ServerDefinition[] => [
      definition({ name: 'github', ...(keywords ? { searchKeywords: keywords } : {}) }),
      definition({ name: 'wiki' }),
    ];
    const plain = describeSession(loadedConfig(servers()), cached).description;
    const keyed = describeSession(loadedConfig(servers({ '*': ['octocat'] })), cached).description;
    expect(keyed).toBe(plain);
    expect(plain).not.toContain('octocat');
  });

  it('config: read per server; a bad value is an error naming the key', () => {
    const config = loadMemory({
      [USER_FILE]: JSON.stringify({
        mcpServers: {
          gh: { command: 'gh', searchKeywords: { search_code: ['grep'], '*': ['gh'] } },
          bad: { command: 'b', searchKeywords: { x: 'grep' } },
        },
      }),
    });
    expect(server(config, 'gh').searchKeywords).toEqual({ search_code: ['grep'], '*': ['gh'] });
    expect(config.diagnostics.filter((d) => d.path?.startsWith('mcpServers.gh'))).toEqual([]);
    expect(config.diagnostics.find((d) => d.path?.startsWith('mcpServers.bad.searchKeywords'))).toMatchObject(
      {
        level: 'error',
      },
    );
  });
});
