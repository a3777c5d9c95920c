import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  assignToolNames,
  BUILTIN_TOOL_NAMES,
  type NamingResult,
  serverPrefix,
  TOOL_NAME_PATTERN,
  ToolNameIndex,
  type ToolNameRequest,
  type ToolPrefixMode,
} from '../../../src/catalog/naming.ts';

const RUNS = 10_000;
const MODES: ToolPrefixMode[] = ['server', 'short', 'none'];

function nameOf(result: NamingResult, server: string, tool: string): string | undefined {
  return result.tools.find((t) => t.server === server && t.tool === tool)?.name;
}

describe('serverPrefix', () => {
  it('turns hyphens into underscores (seed example)', () => {
    expect(serverPrefix('jetbrains-index', 'server')).toBe('jetbrains_index');
  });

  it('strips an mcp affix in short mode only', () => {
    expect(serverPrefix('github-mcp', 'short')).toBe('github');
    expect(serverPrefix('github_mcp', 'short')).toBe('github');
    expect(serverPrefix('mcp-server-git', 'short')).toBe('server_git');
    expect(serverPrefix('github-mcp', 'server')).toBe('github_mcp');
  });

  it('keeps a server called just "mcp" in short mode', () => {
    expect(serverPrefix('mcp', 'short')).toBe('mcp');
  });

  it('is empty in none mode', () => {
    expect(serverPrefix('github', 'none')).toBe('');
  });

  it('transliterates accents and replaces other characters', () => {
    expect(serverPrefix('Café Straße', 'server')).toBe('Cafe_Strasse');
    expect(serverPrefix('acme.corp/tools', 'server')).toBe('acme_corp_tools');
  });

  it('gives a server without usable characters a hashed prefix', () => {
    const prefix = serverPrefix('日本', 'server');
    expect(prefix).toMatch(/^mcp_[0-9a-f]{6}$/);
    expect(serverPrefix('日本', 'server')).toBe(prefix);
    expect(serverPrefix('中文', 'server')).not.toBe(prefix);
  });
});

describe('assignToolNames', () => {
  it('joins prefix and tool with a double underscore and keeps hyphens in the tool part', () => {
    const result = assignToolNames(
      [
        { server: 'jetbrains-index', tool: 'ide_find_definition' },
        { server: 'context7', tool: 'resolve-library-id' },
      ],
      'server',
    );
    expect(result.tools.map((t) => t.name)).toEqual([
      'jetbrains_index__ide_find_definition',
      'context7__resolve-library-id',
    ]);
    expect(result.warnings).toEqual([]);
  });

  it('never shadows a builtin: the clash gets a suffix and a warning', () => {
    const result = assignToolNames([{ server: 'fs', tool: 'read' }], 'none');
    const name = nameOf(result, 'fs', 'read')!;
    expect(name).toMatch(/^read_[0-9a-f]{6}$/);
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toContain('reserved');
    expect(result.warnings[0]).toContain(name);
  });

  it('treats builtins case-insensitively and reserves ToolSearch and mcp', () => {
    const result = assignToolNames(
      [
        { server: 'a', tool: 'Bash' },
        { server: 'a', tool: 'toolsearch' },
        { server: 'a', tool: 'MCP' },
      ],
      'none',
    );
    for (const tool of result.tools) expect(tool.name).not.toBe(tool.tool);
    expect(result.warnings).toHaveLength(3);
  });

  it('honours extra reserved names', () => {
    const result = assignToolNames([{ server: 'a', tool: 'taken' }], 'none', ['taken']);
    expect(nameOf(result, 'a', 'taken')).toMatch(/^taken_[0-9a-f]{6}$/);
  });

  it('resolves a collision in favour of the name that needed no change', () => {
    const requests = [
      { server: 'my.server', tool: 'go' },
      { server: 'my-server', tool: 'go' },
    ];
    for (const order of [requests, [...requests].reverse()]) {
      const result = assignToolNames(order, 'server');
      expect(nameOf(result, 'my-server', 'go')).toBe('my_server__go');
      expect(nameOf(result, 'my.server', 'go')).toMatch(/^my_server__go_[0-9a-f]{6}$/);
      expect(result.warnings.some((w) => w.includes('like another tool'))).toBe(true);
    }
  });

  it('resolves collisions between servers in none mode', () => {
    const result = assignToolNames(
      [
        { server: 'github', tool: 'search_issues' },
        { server: 'sentry', tool: 'search_issues' },
      ],
      'none',
    );
    expect(nameOf(result, 'github', 'search_issues')).toBe('search_issues');
    expect(nameOf(result, 'sentry', 'search_issues')).toMatch(/^search_issues_[0-9a-f]{6}$/);
  });

  it('shortens names over 64 characters with a hash suffix and a warning', () => {
    const tool = `get_${'very_long_'.repeat(10)}name`;
    const result = assignToolNames([{ server: 'server', tool }], 'server');
    const name = nameOf(result, 'server', tool)!;
    expect(name.length).toBeLessThanOrEqual(64);
    expect(name.startsWith('server__get_very_long_')).toBe(true);
    expect(name).toMatch(/_[0-9a-f]{6}$/);
    expect(result.warnings[0]).toContain('longer than 64');
  });

  it('keeps unicode names readable where it can', () => {
    const result = assignToolNames(
      [
        { server: 'menü', tool: 'crème-brûlée' },
        { server: 'menü', tool: 'get.item/by id' },
      ],
      'server',
    );
    expect(result.tools.map((t) => t.name)).toEqual(['menu__creme-brulee', 'menu__get_item_by_id']);
  });

  it('prefixes names that would start with a digit', () => {
    const result = assignToolNames([{ server: '1password', tool: 'get' }], 'server');
    expect(nameOf(result, '1password', 'get')).toBe('_1password__get');
  });

  it('lists a duplicated request once with a warning', () => {
    const result = assignToolNames(
      [
        { server: 'a', tool: 'x' },
        { server: 'a', tool: 'x' },
      ],
      'server',
    );
    expect(result.tools).toEqual([{ server: 'a', tool: 'x', name: 'a__x' }]);
    expect(result.warnings[0]).toContain('listed twice');
  });

  it('gives tools without usable characters distinct placeholder names', () => {
    const result = assignToolNames(
      [
        { server: 's', tool: '' },
        { server: 's', tool: '日本語' },
        { server: 's', tool: '中文' },
      ],
      'server',
    );
    const names = result.tools.map((t) => t.name);
    for (const name of names) expect(name).toMatch(/^s__tool_[0-9a-f]{6}$/);
    expect(new Set(names).size).toBe(3);
  });
});

// --- property tests ---------------------------------------------------------------------------------

const nastyChars = [
  'a',
  'A',
  'b',
  '-',
  '_',
  '.',
  '/',
  ' ',
  'é',
  'E\u0301',
  '日',
  '🙂',
  '1',
  'mcp',
  '__',
  '\u0000',
];
const collisionProne = fc
  .array(fc.constantFrom(...nastyChars), { minLength: 0, maxLength: 6 })
  .map((parts) => parts.join(''));
const anyName = fc.oneof(
  collisionProne,
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ minLength: 150, maxLength: 220 }),
  fc.constantFrom(...BUILTIN_TOOL_NAMES, 'READ', 'Ls', '', 'github-mcp', 'mcp-github'),
);
const request: fc.Arbitrary<ToolNameRequest> = fc.record({ server: anyName, tool: anyName });
const requests = fc.array(request, { maxLength: 25 });
const mode = fc.constantFrom<ToolPrefixMode>(...MODES);
const reservedNames = fc.array(fc.oneof(collisionProne, fc.constantFrom('a__a', 'a', 'tool')), {
  maxLength: 4,
});

function uniqueKeys(list: ToolNameRequest[]): Set<string> {
  return new Set(list.map((r) => `${r.server}\0${r.tool}`));
}

describe('assignToolNames properties', () => {
  it('always yields valid, unique, non-builtin names, one per distinct request', () => {
    fc.assert(
      fc.property(requests, mode, reservedNames, (list, prefix, reserved) => {
        const result = assignToolNames(list, prefix, reserved);
        const forbidden = new Set([...BUILTIN_TOOL_NAMES, ...reserved].map((n) => n.toLowerCase()));
        const seen = new Set<string>();
        for (const tool of result.tools) {
          expect(tool.name).toMatch(TOOL_NAME_PATTERN);
          const key = tool.name.toLowerCase();
          expect(seen.has(key)).toBe(false);
          expect(forbidden.has(key)).toBe(false);
          seen.add(key);
        }
        expect(result.tools.length).toBe(uniqueKeys(list).size);
      }),
      { numRuns: RUNS },
    );
  });

  it('does not depend on the order of the requests', () => {
    const listAndShuffle = requests.chain((list) =>
      fc.tuple(
        fc.constant(list),
        fc.shuffledSubarray(list, { minLength: list.length, maxLength: list.length }),
      ),
    );
    fc.assert(
      fc.property(listAndShuffle, mode, ([list, shuffled], prefix) => {
        const byKey = (result: NamingResult) =>
          new Map(result.tools.map((t) => [`${t.server}\0${t.tool}`, t.name]));
        const a = assignToolNames(list, prefix);
        const b = assignToolNames(shuffled, prefix);
        expect(byKey(b)).toEqual(byKey(a));
        expect([...b.warnings].sort()).toEqual([...a.warnings].sort());
      }),
      { numRuns: RUNS },
    );
  });

  it('looks every registered name up to its server and original tool name', () => {
    fc.assert(
      fc.property(requests, mode, (list, prefix) => {
        const result = assignToolNames(list, prefix);
        const index = new ToolNameIndex(result.tools);
        for (const tool of result.tools) {
          expect(index.lookup(tool.name)).toEqual(tool);
        }
        for (const original of list) {
          const found = result.tools.find((t) => t.server === original.server && t.tool === original.tool);
          expect(found).toBeDefined();
        }
        expect(index.size).toBe(result.tools.length);
      }),
      { numRuns: RUNS },
    );
  });

  it('keeps two requests apart whose server and tool join to the same text', () => {
    // fast-check found it (seed -565071235): a NUL-joined key made these one request.
    const result = assignToolNames(
      [
        { server: '\u0000', tool: '' },
        { server: '', tool: '\u0000' },
      ],
      'server',
    );
    expect(result.tools).toHaveLength(2);
  });

  it('keeps a plain name unchanged when nothing else competes for it', () => {
    const plain = fc.stringMatching(/^[a-z][a-z0-9_]{0,20}$/);
    fc.assert(
      fc.property(plain, plain, (server, tool) => {
        fc.pre(!server.includes('__') && !server.endsWith('_'));
        const result = assignToolNames([{ server, tool }], 'server');
        expect(result.tools[0]!.name).toBe(`${server}__${tool}`);
        expect(result.warnings).toEqual([]);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('ToolNameIndex', () => {
  it('returns undefined for unknown names and accepts a different case', () => {
    const index = new ToolNameIndex([{ server: 'github', tool: 'get_issue', name: 'github__get_issue' }]);
    expect(index.lookup('github__nope')).toBeUndefined();
    expect(index.lookup('GitHub__Get_Issue')?.tool).toBe('get_issue');
  });
});
