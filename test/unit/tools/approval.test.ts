// approveTools: which calls ask (true, globs over the names users write, per-server over settings,
// false off) and what the session remembers for each answer.

import { describe, expect, it } from 'vitest';
import type { CatalogEntry } from '../../../src/catalog/catalog.ts';
import { toolNameCandidates } from '../../../src/catalog/name-patterns.ts';
import { SecretValues } from '../../../src/redact/index.ts';
import { type ApprovalAnswer, createToolApprovals, needsApproval } from '../../../src/tools/approval.ts';
import { loadMemory, server, USER_FILE } from '../config/helpers.ts';

const json = (value: unknown) => JSON.stringify(value);

import { definition } from '../../support/config.ts';

function entry(server: string, tool: string): CatalogEntry {
  return {
    name: `${server.replace(/-/g, '_')}__${tool}`,
    server,
    tool,
    kind: 'tool',
    description: '',
    inputSchema: { type: 'object' },
    exposure: 'deferred',
  };
}

describe('which calls need approval', () => {
  it('true asks for every tool, false and absent never', () => {
    expect(needsApproval(definition({ name: 'gh', approveTools: true }), entry('gh', 'list'))).toBe(true);
    expect(needsApproval(definition({ name: 'gh', approveTools: false }), entry('gh', 'list'))).toBe(false);
    expect(needsApproval(definition({ name: 'gh' }), entry('gh', 'list'))).toBe(false);
    expect(needsApproval(definition({ name: 'gh', approveTools: [] }), entry('gh', 'list'))).toBe(false);
  });

  it('globs match the original name, our registered name and pi-mcp-adapter’s names', () => {
    const gh = (patterns: string[]) => definition({ name: 'github-mcp', approveTools: patterns });
    const del = entry('github-mcp', 'delete_repo');
    expect(needsApproval(gh(['delete_*']), del)).toBe(true);
    expect(needsApproval(gh(['github_mcp__delete_repo']), del)).toBe(true);
    expect(needsApproval(gh(['github_mcp_delete_*']), del)).toBe(true);
    expect(needsApproval(gh(['github_delete_*']), del)).toBe(true); // its "short" prefix
    expect(needsApproval(gh(['mcp__github_mcp_delete_repo']), del)).toBe(true);
    expect(needsApproval(gh(['delete_?epo']), del)).toBe(true);
    expect(needsApproval(gh(['delete_*']), entry('github-mcp', 'list_repos'))).toBe(false);
    expect(needsApproval(gh(['delete']), del)).toBe(false);
    expect(toolNameCandidates('docs', 'a.b', 'docs__a_b')).toContain('docs_a_b');
  });

  it('a server’s own approveTools overrides settings.approveTools; false turns it off', () => {
    const config = loadMemory({
      [USER_FILE]: json({
        settings: { approveTools: ['*_delete_*'] },
        mcpServers: {
          github: { command: 'gh', approveTools: ['merge_pull_request'] },
          docs: { command: 'docs', approveTools: false },
          notion: { command: 'notion' },
          all: { command: 'all', approveTools: true },
        },
      }),
    });
    expect(server(config, 'github').approveTools).toEqual(['merge_pull_request']);
    expect(server(config, 'docs').approveTools).toBeUndefined();
    expect(server(config, 'notion').approveTools).toEqual(['*_delete_*']);
    expect(server(config, 'all').approveTools).toBe(true);
    expect(config.diagnostics.filter((d) => d.path?.includes('approveTools'))).toEqual([]);
    expect(needsApproval(server(config, 'github'), entry('github', 'github_delete_issue'))).toBe(false);
    expect(needsApproval(server(config, 'notion'), entry('notion', 'page_delete_all'))).toBe(true);
  });

  it('a bad value is an error naming the key; the server is skipped rather than run unguarded', () => {
    const config = loadMemory({
      [USER_FILE]: json({ mcpServers: { gh: { command: 'gh', approveTools: 'yes' } } }),
    });
    expect(config.servers).toEqual([]);
    expect(config.diagnostics.find((d) => d.path === 'mcpServers.gh.approveTools')).toMatchObject({
      level: 'error',
    });
  });
});

describe('session grants', () => {
  const def = definition({ name: 'gh', approveTools: true });

  function withAnswers(...answers: ApprovalAnswer[]) {
    const asked: string[] = [];
    const grants = new Set<string>();
    const approvals = createToolApprovals(
      async (request) => {
        asked.push(request.tool);
        return answers.shift() ?? 'deny';
      },
      new SecretValues(),
      undefined,
      grants,
    );
    return { approvals, asked, grants };
  }

  it('Allow once asks again next time; Allow for this session remembers the tool only', async () => {
    const { approvals, asked } = withAnswers('once', 'session');
    expect(await approvals.check(def, entry('gh', 'a'), {})).toBeUndefined();
    expect(await approvals.check(def, entry('gh', 'a'), {})).toBeUndefined();
    expect(await approvals.check(def, entry('gh', 'a'), {})).toBeUndefined();
    expect(asked).toEqual(['a', 'a']);
    expect(await approvals.check(def, entry('gh', 'b'), {})).toMatch(/user denied the call to gh__b/);
    expect(asked).toEqual(['a', 'a', 'b']);
  });

  it('Allow this server remembers every tool of the server until its config changes or the session ends', async () => {
    const { approvals, asked, grants } = withAnswers('server', 'server', 'deny');
    expect(await approvals.check(def, entry('gh', 'a'), {})).toBeUndefined();
    expect(await approvals.check(def, entry('gh', 'b'), {})).toBeUndefined();
    expect(asked).toEqual(['a']);
    const changed = { ...def, args: ['--other'] };
    expect(await approvals.check(changed, entry('gh', 'b'), {})).toBeUndefined();
    expect(asked).toEqual(['a', 'b']);
    // A new session starts with no grants.
    grants.clear();
    expect(await approvals.check(def, entry('gh', 'a'), {})).toMatch(/denied/);
  });

  it('the question carries the arguments as one line, cut when long, known secrets redacted', async () => {
    const previews: string[] = [];
    const secrets = new SecretValues();
    const approvals = createToolApprovals(async (request) => {
      previews.push(request.preview);
      return 'once';
    }, secrets);
    secrets.add(['ghp_previewSecret123']);
    await approvals.check(def, entry('gh', 'a'), { repo: 'pi', token: 'ghp_previewSecret123' });
    await approvals.check(def, entry('gh', 'a'), { body: 'x'.repeat(1000) });
    expect(previews[0]).toBe('{"repo":"pi","token":"***"}');
    expect(previews[1]).toHaveLength(300);
    expect(previews[1]!.endsWith('…')).toBe(true);
  });

  it('without anyone to ask, the call fails closed and says how to allow it', async () => {
    const refusal = await createToolApprovals(undefined, new SecretValues()).check(def, entry('gh', 'a'), {});
    expect(refusal).toContain("gh__a needs the user's approval");
    expect(refusal).toContain('"approveTools" of server "gh" at mcpServers.gh in /home/u/.pi/agent/mcp.json');
    expect(refusal).toContain('no interactive UI');
    const noUi = await createToolApprovals(async () => 'no-ui', new SecretValues()).check(
      def,
      entry('gh', 'a'),
      {},
    );
    expect(noUi).toBe(refusal);
  });
});
