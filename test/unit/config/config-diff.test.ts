import { describe, expect, it } from 'vitest';
import {
  configFiles,
  describeBadSave,
  describeDiff,
  diffConfig,
  isEmptyDiff,
} from '../../../src/config/config-diff.ts';
import type { Diagnostic } from '../../../src/config/types.ts';
import { definition, loadedConfig } from '../../support/config.ts';

const alpha = definition({ name: 'alpha', command: 'alpha-server' });
const notes = definition({ name: 'notes', command: 'notes-server', args: ['--v1'] });

describe('diffConfig', () => {
  it('finds added, removed and changed servers', () => {
    const last = loadedConfig([alpha, notes]);
    const beta = definition({ name: 'beta', command: 'beta-server' });
    const next = loadedConfig([beta, { ...notes, args: ['--v2'] }]);
    const { diff } = diffConfig(last, next);
    expect(diff.added.map((d) => d.name)).toEqual(['beta']);
    expect(diff.removed.map((d) => d.name)).toEqual(['alpha']);
    expect(diff.changed.map((d) => d.name)).toEqual(['notes']);
    expect(describeDiff(diff)).toBe('config changed: +beta −alpha, notes restarted');
  });

  it('does not restart a server whose entry only moved (another key path or file)', () => {
    const moved = {
      ...alpha,
      source: { ...alpha.source, file: '/p/.pi/mcp.json', keyPath: 'servers.alpha' },
    };
    const { diff } = diffConfig(loadedConfig([alpha]), loadedConfig([moved]));
    expect(isEmptyDiff(diff)).toBe(true);
  });

  it('applies settings that follow at once, keeps those read once per session until a new one', () => {
    const last = loadedConfig([alpha], { outputLimitBytes: 1000, toolPrefix: 'server' });
    const next = loadedConfig([alpha], { outputLimitBytes: 2000, toolPrefix: 'none' });
    const { diff, config } = diffConfig(last, next);
    expect(diff.settings).toEqual(['outputLimitBytes']);
    expect(diff.laterSettings).toEqual(['toolPrefix']);
    expect(config.settings.outputLimitBytes).toBe(2000);
    expect(config.settings.toolPrefix).toBe('server');
    expect(describeDiff(diff)).toBe(
      'config changed: settings outputLimitBytes applied, settings toolPrefix apply in a new session (/reload)',
    );
  });
});

describe('a bad save', () => {
  const parse: Diagnostic = {
    level: 'error',
    code: 'invalid-json',
    file: '/h/.pi/agent/mcp.json',
    message: '/h/.pi/agent/mcp.json is not valid JSON (line 3, column 1: unexpected end)',
  };

  it('names the file the last good config stays for', () => {
    expect(describeBadSave([parse])).toBe(
      `config edit not applied, the last good config stays for /h/.pi/agent/mcp.json: ${parse.message}`,
    );
  });

  it('names the key path of an invalid entry', () => {
    const entry: Diagnostic = {
      level: 'error',
      code: 'invalid-server',
      file: '/h/.pi/agent/mcp.json',
      path: 'mcpServers.beta.args',
      message: 'args must be a list of strings',
    };
    expect(describeBadSave([entry, parse])).toBe(
      'config edit not applied, the last good config stays for /h/.pi/agent/mcp.json mcpServers.beta.args: args must be a list of strings (+1 more)',
    );
  });
});

it('watches every file read, found or not', () => {
  const config = {
    ...loadedConfig([]),
    files: [
      { file: '/h/.pi/agent/mcp.json', kind: 'user' as const, found: true },
      { file: '/p/.pi/mcp.json', kind: 'project' as const, found: false },
      { file: '/h/.pi/agent/mcp.json', kind: 'user' as const, found: true },
    ],
  };
  expect(configFiles(config)).toEqual(['/h/.pi/agent/mcp.json', '/p/.pi/mcp.json']);
});
