import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assignToolNames } from '../../../src/catalog/naming.ts';
import { createSearchIndex, type SearchDoc } from '../../../src/catalog/search.ts';

type Tool = [tool: string, description: string, params?: string[]];

// A small catalog with the descriptions real servers publish.
const CATALOG: Record<string, Tool[]> = {
  playwright: [
    ['browser_navigate', 'Navigate to a URL', ['url']],
    ['browser_take_screenshot', 'Take a screenshot of the current page.', ['element', 'fullPage']],
    [
      'browser_snapshot',
      'Capture accessibility snapshot of the current page, this is better than screenshot',
    ],
    ['browser_click', 'Perform click on a web page', ['element', 'doubleClick']],
    ['browser_type', 'Type text into editable element', ['element', 'text']],
    ['browser_tabs', 'List, create, close, or select a browser tab.', ['action']],
    ['browser_close', 'Close the page'],
    ['browser_console_messages', 'Returns all console messages', ['level']],
  ],
  'chrome-devtools': [
    ['take_screenshot', 'Take a screenshot of the page or element.', ['pageId', 'fullPage']],
    ['navigate_page', 'Go to a URL, or back, forward, or reload.', ['url']],
    ['new_page', 'Open a new tab and load a URL.', ['url']],
    [
      'list_network_requests',
      'Lists the most recent requests for the target page since the last navigation.',
    ],
    ['performance_start_trace', 'Start a performance trace on the target webpage.'],
  ],
  filesystem: [
    ['read_text_file', 'Read the complete contents of a file from the file system as text.', ['path']],
    ['write_file', 'Create a new file or completely overwrite an existing file with new content.', ['path']],
    ['create_directory', 'Create a new directory or ensure a directory exists.', ['path']],
    ['list_directory', 'Get a detailed listing of all files and directories in a specified path.', ['path']],
    ['move_file', 'Move or rename files and directories.', ['source', 'destination']],
    ['search_files', 'Recursively search for files and directories matching a pattern.', ['pattern']],
    ['delete_file', 'Delete a file from the file system.', ['path']],
  ],
  github: [
    ['create_issue', 'Create a new issue in a GitHub repository', ['owner', 'repo', 'title']],
    ['list_issues', 'List issues in a GitHub repository with filtering options', ['owner', 'repo']],
    ['search_issues', 'Search for issues and pull requests across GitHub repositories', ['q']],
    ['list_pull_requests', 'List and filter repository pull requests', ['owner', 'repo']],
    ['merge_pull_request', 'Merge a pull request', ['owner', 'repo', 'pull_number']],
    ['fork_repository', 'Fork a GitHub repository to your account or specified organization'],
  ],
  gitlab: [
    ['create_issue', 'Create a new issue in a GitLab project', ['project_id', 'title']],
    ['create_merge_request', 'Create a new merge request in a GitLab project', ['project_id']],
  ],
  sentry: [
    ['search_issues', 'Search for grouped issues/problems in Sentry', ['organizationSlug', 'query']],
    ['find_releases', 'Find releases in Sentry.', ['organizationSlug']],
    ['find_teams', 'Find teams in an organization in Sentry.', ['organizationSlug']],
    ['create_team', 'Create a new team in Sentry.', ['organizationSlug', 'name']],
    [
      'update_issue',
      "Update a Sentry issue's status or assignment. Use this to resolve, reopen, assign, or ignore.",
    ],
  ],
  slack: [
    ['slack_post_message', 'Post a new message to a Slack channel', ['channel_id', 'text']],
    ['slack_list_channels', 'List public or pre-defined channels in the workspace with pagination'],
    ['slack_get_users', 'Get a list of all users in the workspace with their basic profile information'],
    ['slack_add_reaction', 'Add a reaction emoji to a message', ['channel_id', 'reaction']],
    ['slack_get_user_profile', 'Get detailed profile information for a specific user', ['user_id']],
  ],
  kubernetes: [
    ['kubectl_get', 'Get or list Kubernetes resources by resource type, name, and optionally namespace'],
    ['kubectl_delete', 'Delete Kubernetes resources by resource type, name, labels, or from a manifest file'],
    ['kubectl_logs', 'Get logs from Kubernetes resources like pods, deployments, or jobs'],
    ['install_helm_chart', 'Install a Helm chart'],
    ['uninstall_helm_chart', 'Uninstall a Helm chart release'],
  ],
  memory: [
    ['create_entities', 'Create multiple new entities in the knowledge graph', ['entities']],
    ['add_observations', 'Add new observations to existing entities in the knowledge graph'],
    ['read_graph', 'Read the entire knowledge graph'],
  ],
  'google-maps': [
    ['maps_geocode', 'Convert an address into geographic coordinates', ['address']],
    ['maps_directions', 'Get directions between two points', ['origin', 'destination', 'mode']],
    ['maps_distance_matrix', 'Calculate travel distance and time for multiple origins and destinations'],
  ],
  'sequential-thinking': [
    ['sequentialthinking', 'A detailed tool for dynamic and reflective problem-solving'],
  ],
  everything: [['echo', 'Echoes back the input string', ['message']]],
};

function buildDocs(): SearchDoc[] {
  const entries = Object.entries(CATALOG).flatMap(([server, tools]) =>
    tools.map(([tool, description, params = []]) => ({ server, tool, description, params })),
  );
  const { tools: named } = assignToolNames(entries, 'server');
  return entries.map((e, i) => ({
    name: named[i]!.name,
    server: e.server,
    tool: e.tool,
    description: e.description,
    inputSchema: {
      type: 'object',
      properties: Object.fromEntries(e.params.map((p) => [p, { type: 'string' }])),
    },
  }));
}

const docs = buildDocs();
const index = createSearchIndex(docs);
const names = (query: string, limit?: number) => index.search(query, limit).map((h) => h.name);
const top = (query: string) => names(query)[0];

describe('createSearchIndex', () => {
  it('reports its size', () => {
    expect(index.size).toBe(docs.length);
  });

  it('ranks a query naming a tool exactly first, by registered or original name', () => {
    expect(top('github__create_issue')).toBe('github__create_issue');
    expect(top('gitlab__create_issue')).toBe('gitlab__create_issue');
    expect(top('sequentialthinking')).toBe('sequential_thinking__sequentialthinking');
    expect(top('echo')).toBe('everything__echo');
    expect(names('create_issue').slice(0, 2).sort()).toEqual([
      'github__create_issue',
      'gitlab__create_issue',
    ]);
  });

  it('finds screenshot tools from paraphrases that do not name them', () => {
    const screenshots = ['playwright__browser_take_screenshot', 'chrome_devtools__take_screenshot'];
    for (const query of ['grab an image of the web page', 'take a picture of the page', 'screen shot']) {
      expect(screenshots).toContain(top(query));
    }
  });

  it('understands common paraphrases of tool verbs and nouns', () => {
    expect(top('make a new folder')).toBe('filesystem__create_directory');
    expect(top('open a ticket in the github repo')).toBe('github__create_issue');
    expect(top('merge the PR')).toBe('github__merge_pull_request');
    expect(top('open an MR on gitlab')).toBe('gitlab__create_merge_request');
    expect(top('tell the team in chat that the build is broken')).toBe('slack__slack_post_message');
    expect(['google_maps__maps_distance_matrix', 'google_maps__maps_directions']).toContain(
      top('how far is the airport from downtown'),
    );
    expect(top('think through this step by step')).toBe('sequential_thinking__sequentialthinking');
  });

  it('splits camelCase, snake_case and kebab-case and stems words', () => {
    expect(top('listPullRequests')).toBe('github__list_pull_requests');
    expect(top('listing pull-requests')).toBe('github__list_pull_requests');
    expect(top('directories created')).toBe('filesystem__create_directory');
  });

  it('prefers the server the query names', () => {
    expect(top('github issues')).toMatch(/^github__/);
    expect(top('sentry issues')).toMatch(/^sentry__/);
  });

  it('follows what the query asks to do: remove is not install, list is not create', () => {
    expect(top('remove the helm release')).toBe('kubernetes__uninstall_helm_chart');
    expect(top('install a helm chart')).toBe('kubernetes__install_helm_chart');
    expect(top('delete a file')).toBe('filesystem__delete_file');
    expect(top('list issues')).toBe('github__list_issues');
  });

  it('does not take a tool that does the opposite because its description uses the query word', () => {
    const backups = createSearchIndex([
      {
        name: 'b__create_backup',
        server: 'b',
        tool: 'create_backup',
        description: 'Create a backup of the volume. Backups older than 30 days are removed automatically.',
      },
      { name: 'b__delete_backup', server: 'b', tool: 'delete_backup', description: 'Delete a backup.' },
      {
        name: 'b__list_backups',
        server: 'b',
        tool: 'list_backups',
        description: 'List backups, newest first.',
      },
    ]);
    expect(backups.search('remove old backups')[0]?.name).toBe('b__delete_backup');
    expect(backups.search('make a new backup')[0]?.name).toBe('b__create_backup');
  });

  const twins = (tools: string[]) =>
    createSearchIndex(
      tools.map((tool) => ({
        name: `t__${tool}`,
        server: 't',
        tool,
        description: 'Operates on the queue of widgets.',
      })),
    );

  it('prefers, between otherwise equal tools, the one whose verb does what the query asks', () => {
    // "clear" is no synonym of either verb; only its kind (removal) tells them apart.
    expect(twins(['insert_queue', 'purge_queue']).search('clear the queue')[0]?.name).toBe('t__purge_queue');
    expect(twins(['purge_queue', 'insert_queue']).search('enqueue and add to the queue')[0]?.name).toBe(
      't__insert_queue',
    );
  });

  it('reads a noun-only query as a lookup, between otherwise equal tools', () => {
    expect(twins(['create_widget', 'get_widget']).search('widget')[0]?.name).toBe('t__get_widget');
    expect(twins(['create_widget', 'get_widget']).search('new widget')[0]?.name).toBe('t__create_widget');
  });

  it('reads a noun-only query as a lookup', () => {
    expect(top('slack users')).toBe('slack__slack_get_users');
    expect(top('sentry releases')).toBe('sentry__find_releases');
    expect(top('sentry teams')).toBe('sentry__find_teams');
  });

  it('tolerates a typo and matches word prefixes', () => {
    expect(top('screnshot')).toMatch(/screenshot/);
    expect(names('kube').length).toBeGreaterThan(0);
    expect(names('kube').every((n) => n.startsWith('kubernetes__'))).toBe(true);
  });

  it('tokenizes Chinese and Japanese without spaces into character pairs', () => {
    const cjk = createSearchIndex([
      {
        name: 'amap__maps_weather',
        server: 'amap',
        tool: 'maps_weather',
        description: '根据城市名称查询指定城市的天气',
      },
      {
        name: 'amap__maps_distance',
        server: 'amap',
        tool: 'maps_distance',
        description: '测量两个经纬度坐标之间的距离',
      },
      { name: 'jp__search', server: 'jp', tool: 'search', description: 'ウェブページを検索する' },
    ]);
    expect(cjk.search('查询北京的天气')[0]?.name).toBe('amap__maps_weather');
    expect(cjk.search('两地之间的距离')[0]?.name).toBe('amap__maps_distance');
    expect(cjk.search('ページ検索')[0]?.name).toBe('jp__search');
  });

  it('expands query words with general English synonyms it was not given by hand', () => {
    const shop = createSearchIndex([
      { name: 'shop__buy_item', server: 'shop', tool: 'buy_item', description: 'Buy an item from the store' },
      {
        name: 'shop__list_items',
        server: 'shop',
        tool: 'list_items',
        description: 'List the items in the store',
      },
    ]);
    expect(shop.search('purchase a gift')[0]?.name).toBe('shop__buy_item');
  });

  it('folds accents and case in queries', () => {
    expect(top('SCRËENSHOT')).toMatch(/screenshot/);
  });

  it('returns [] for queries without searchable words, without throwing', () => {
    for (const query of ['', '   ', '!!!', 'the of and to', '日本語のクエリ', '🙂🙂', '\u0000\u0001']) {
      expect(index.search(query)).toEqual([]);
    }
  });

  it('returns [] for nonsense and does not throw on hostile input', () => {
    expect(index.search('qwxzv plorkt')).toEqual([]);
    expect(() => index.search('a'.repeat(200_000))).not.toThrow();
    expect(() => index.search("'; DROP TABLE tools; --")).not.toThrow();
    expect(index.search(null as unknown as string)).toEqual([]);
    expect(index.search(42 as unknown as string)).toEqual([]);
  });

  it('honours the limit and defaults to 5', () => {
    expect(index.search('file').length).toBeLessThanOrEqual(5);
    expect(index.search('file', 2)).toHaveLength(2);
    expect(index.search('file', 0)).toEqual([]);
    expect(index.search('file', -3)).toEqual([]);
    expect(index.search('file', Number.NaN).length).toBeLessThanOrEqual(5);
  });

  it('does not depend on the order of the catalog', () => {
    const reversed = createSearchIndex([...docs].reverse());
    for (const query of ['screenshot', 'create issue', 'slack', 'list', 'page']) {
      expect(reversed.search(query)).toEqual(index.search(query));
    }
  });

  it('builds from docs with missing or odd fields', () => {
    const odd = createSearchIndex([
      { name: 'a__x', server: 'a', tool: 'x' },
      {
        name: 'a__y',
        server: 'a',
        tool: 'y',
        description: 'z'.repeat(100_000),
        inputSchema: { properties: 5 },
      },
      {
        name: 'a__fetch',
        server: 'a',
        tool: 'fetch',
        inputSchema: { type: 'array', items: { properties: { url: {} } } },
      },
      null as unknown as SearchDoc,
    ]);
    expect(odd.size).toBe(3);
    expect(odd.search('fetch')[0]?.name).toBe('a__fetch');
    expect(odd.search('url')[0]?.name).toBe('a__fetch');
  });

  it('answers nothing from an empty catalog', () => {
    const empty = createSearchIndex([]);
    expect(empty.size).toBe(0);
    expect(empty.search('anything')).toEqual([]);
    expect(empty.suggest('anything')).toEqual([]);
  });

  it('always returns at most `limit` hits, best first, with finite positive scores and shares of the best in (0, 1]', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 60 }),
        fc.integer({ min: 0, max: 20 }),
        (query, limit) => {
          const hits = index.search(query, limit);
          expect(hits.length).toBeLessThanOrEqual(limit);
          for (let i = 0; i < hits.length; i++) {
            expect(Number.isFinite(hits[i]!.score) && hits[i]!.score > 0).toBe(true);
            expect(hits[i]!.relative > 0 && hits[i]!.relative <= 1).toBe(true);
            if (i > 0) expect(hits[i]!.score).toBeLessThanOrEqual(hits[i - 1]!.score);
          }
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('ranks the same words drawn from the catalog without throwing, in any mix', () => {
    const vocabulary = docs.flatMap((d) => `${d.tool} ${d.description}`.split(/[\s_]+/));
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...vocabulary), { maxLength: 8 }), (words) => {
        const hits = index.search(words.join(' '), 5);
        expect(new Set(hits.map((h) => h.name)).size).toBe(hits.length);
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('suggest', () => {
  it('suggests the intended name for a misspelt one', () => {
    expect(index.suggest('githb__create_isue')[0]).toBe('github__create_issue');
    expect(index.suggest('take_screenshto')).toContain('chrome_devtools__take_screenshot');
  });

  it('suggests names sharing words with the query', () => {
    expect(index.suggest('helm')).toEqual(
      expect.arrayContaining(['kubernetes__install_helm_chart', 'kubernetes__uninstall_helm_chart']),
    );
  });

  it('suggests nothing for unrelated or empty input, and respects the limit', () => {
    expect(index.suggest('zzzzqqqq')).toEqual([]);
    expect(index.suggest('')).toEqual([]);
    expect(index.suggest('file', 1)).toHaveLength(1);
    expect(index.suggest(undefined as unknown as string)).toEqual([]);
  });
});
