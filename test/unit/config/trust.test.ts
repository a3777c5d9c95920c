// Servers from project files start only when Pi reports the project as trusted.

import { describe, expect, it } from 'vitest';
import { TRUST_FIX, TRUST_REASON } from '../../../src/config/load.ts';
import {
  CLAUDE_PROJECT_FILE,
  fixture,
  loadMemory,
  names,
  PROJECT_FILE,
  server,
  USER_FILE,
  withCode,
} from './helpers.ts';

const json = (value: unknown) => JSON.stringify(value);

const files = {
  [USER_FILE]: json({
    mcpServers: { shared: { command: 'user-shared' } },
    settings: { toolPrefix: 'short' },
  }),
  [CLAUDE_PROJECT_FILE]: json({ mcpServers: { 'claude-only': { command: 'c' } } }),
  [PROJECT_FILE]: json({
    mcpServers: { shared: { command: 'project-shared' }, 'pi-only': { command: 'p' } },
    settings: { toolPrefix: 'none' },
    imports: ['cursor'],
  }),
  // A project's imports read the client's files inside the project only.
  '/work/app/.cursor/mcp.json': fixture('cursor/mcp.json'),
  '/work/app/.vscode/mcp.json': json({ servers: { 'vscode-project': { command: 'v' } } }),
};

describe('untrusted project', () => {
  const config = loadMemory(
    { ...files, [USER_FILE]: files[USER_FILE].replace('"settings"', '"imports":["vscode"],"settings"') },
    { projectTrusted: false },
  );

  it('lists project servers as skipped, with the reason and how to trust', () => {
    expect(config.skipped.map((s) => [s.name, s.reason, s.fix, s.source.kind])).toEqual([
      ['claude-only', TRUST_REASON, TRUST_FIX, 'project'],
      ['pi-only', TRUST_REASON, TRUST_FIX, 'project'],
      ['vscode-project', TRUST_REASON, TRUST_FIX, 'import'],
    ]);
    expect(TRUST_FIX).toContain('Trust the project in Pi');
  });

  it("keeps the user's servers, including one the project would have replaced", () => {
    expect(names(config)).toEqual(['shared']);
    expect(server(config, 'shared').command).toBe('user-shared');
  });

  it("applies neither the project's settings nor its imports", () => {
    expect(config.settings.toolPrefix).toBe('short');
    expect(config.servers.some((s) => s.source.importedFrom === 'cursor')).toBe(false);
  });

  it('says so once per project file', () => {
    expect(withCode(config, 'untrusted-project').map((d) => d.message)).toEqual([
      `${CLAUDE_PROJECT_FILE} is not applied because the project is not trusted. Servers not applied: claude-only.`,
      `${PROJECT_FILE} is not applied because the project is not trusted. Servers not applied: shared, pi-only. Its settings and imports are not applied either.`,
    ]);
    expect(withCode(config, 'untrusted-project')[0]?.fix).toBe(TRUST_FIX);
  });
});

describe('trusted project', () => {
  it('uses the project servers, settings and imports', () => {
    const config = loadMemory(files, { projectTrusted: true, env: { SUPABASE_ACCESS_TOKEN: 'sb-token' } });
    expect(server(config, 'shared').command).toBe('project-shared');
    expect(config.settings.toolPrefix).toBe('none');
    expect(names(config)).toEqual(['claude-only', 'context7', 'pi-only', 'playwright', 'shared', 'supabase']);
    expect(withCode(config, 'untrusted-project')).toEqual([]);
  });
});
