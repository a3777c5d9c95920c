// A bad save keeps the last good config per file (issue 37): real files in a temporary home and project,
// read again after each save as a running session does.

import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { diffConfig } from '../../../src/config/config-diff.ts';
import { LastGoodConfig } from '../../../src/config/last-good.ts';
import { cleanupLayouts, type Layout, layout, names, server } from './helpers.ts';

afterEach(cleanupLayouts);

const json = (value: unknown) => JSON.stringify(value, null, 2);
const USER = 'home/.pi/agent/mcp.json';
const PROJECT = 'project/.pi/mcp.json';
const BROKEN = '{\n  "mcpServers": {\n    "alpha": \n';

/** A session over `files`: its start, then a reread after each save, as checkConfig does. */
function session(files: Record<string, string>) {
  const l = layout(files);
  const lastGood = new LastGoodConfig();
  let config = l.load();
  lastGood.start(config);
  return {
    l,
    get config() {
      return config;
    },
    save(more: Record<string, string>) {
      l.write(more);
      const read = lastGood.reread(config, (live) => l.load(live));
      const { diff, config: next } = diffConfig(config, read.config);
      config = next;
      return { ...read, diff };
    },
  };
}

const file = (l: Layout, relative: string) => `${l.root}/${relative}`;

describe('a file that no longer parses keeps its last good version', () => {
  it('while another file’s edit applies; the repair applies too', () => {
    const s = session({
      [USER]: json({ mcpServers: { alpha: { command: 'alpha-v1' } } }),
      [PROJECT]: json({ mcpServers: { local: { command: 'local' } } }),
    });
    const bad = s.save({ [USER]: BROKEN });
    expect(names(bad.config)).toEqual(['alpha', 'local']);
    expect(bad.errors.map((d) => [d.code, d.file])).toEqual([['invalid-json', file(s.l, USER)]]);
    expect(bad.errors[0]!.message).toMatch(
      /line \d+, column \d+: .*\); its last good version is used until it is fixed\.$/,
    );
    // /mcp lists it with the config's other problems.
    expect(bad.config.diagnostics.some((d) => d.code === 'invalid-json')).toBe(true);

    // The project file gets a new server while the user file is still broken.
    const meanwhile = s.save({
      [PROJECT]: json({ mcpServers: { local: { command: 'local' }, beta: { command: 'beta' } } }),
    });
    expect(meanwhile.diff.added.map((d) => d.name)).toEqual(['beta']);
    expect(meanwhile.diff.removed).toEqual([]);
    expect(server(meanwhile.config, 'alpha').command).toBe('alpha-v1');
    expect(meanwhile.errors.map((d) => d.code)).toEqual(['invalid-json']);

    const repaired = s.save({ [USER]: json({ mcpServers: { alpha: { command: 'alpha-v2' } } }) });
    expect(repaired.errors).toEqual([]);
    expect(repaired.diff.changed.map((d) => d.name)).toEqual(['alpha']);
    expect(server(repaired.config, 'alpha').command).toBe('alpha-v2');
    expect(names(repaired.config)).toEqual(['alpha', 'beta', 'local']);
    expect(repaired.config.diagnostics.filter((d) => d.level === 'error')).toEqual([]);
  });

  it('is merged as the loader merges: a project override still adjusts the kept user server', () => {
    const s = session({
      [USER]: json({ mcpServers: { alpha: { command: 'alpha' }, notes: { command: 'notes' } } }),
      [PROJECT]: json({ mcpServers: { alpha: { exposure: 'direct' } } }),
    });
    const bad = s.save({ [USER]: BROKEN, [PROJECT]: json({ mcpServers: { notes: { enabled: false } } }) });
    expect(names(bad.config)).toEqual(['alpha']);
    expect(server(bad.config, 'alpha').exposure).not.toBe('direct');
    expect(bad.diff.removed.map((d) => d.name)).toEqual(['notes']);
    expect(bad.config.diagnostics.map((d) => d.code)).not.toContain('missing-transport');
  });

  it('keeps reading the files its last good version imports', () => {
    const cursor = 'home/.cursor/mcp.json';
    const s = session({
      [USER]: json({ imports: ['cursor'], mcpServers: { alpha: { command: 'alpha' } } }),
      [cursor]: json({ mcpServers: { pen: { command: 'pen' } } }),
    });
    s.save({ [USER]: BROKEN });
    const edited = s.save({
      [cursor]: json({ mcpServers: { pen: { command: 'pen' }, ink: { command: 'ink' } } }),
    });
    expect(edited.diff.added.map((d) => d.name)).toEqual(['ink']);
    expect(names(edited.config)).toEqual(['alpha', 'ink', 'pen']);
  });

  it('a file that was broken when the session started stays out, as at the start, and holds nothing back', () => {
    const s = session({
      [USER]: json({ mcpServers: { alpha: { command: 'alpha' } } }),
      [PROJECT]: BROKEN,
    });
    expect(names(s.config)).toEqual(['alpha']);
    const edited = s.save({
      [USER]: json({ mcpServers: { alpha: { command: 'alpha' }, beta: { command: 'b' } } }),
    });
    expect(edited.errors).toEqual([]);
    expect(edited.diff.added.map((d) => d.name)).toEqual(['beta']);
    // Broken again after a good version: now it has one to keep.
    s.save({ [PROJECT]: json({ mcpServers: { local: { command: 'local' } } }) });
    const again = s.save({ [PROJECT]: BROKEN });
    expect(again.errors.map((d) => d.file)).toEqual([file(s.l, PROJECT)]);
    expect(names(again.config)).toEqual(['alpha', 'beta', 'local']);
  });

  it('a file deleted is no server; one that then appears broken has no good version to keep', () => {
    const s = session({
      [USER]: json({ mcpServers: { alpha: { command: 'alpha' } } }),
      [PROJECT]: json({ mcpServers: { local: { command: 'local' } } }),
    });
    rmSync(file(s.l, PROJECT));
    expect(s.save({}).diff.removed.map((d) => d.name)).toEqual(['local']);
    const broken = s.save({ [PROJECT]: BROKEN });
    expect(names(broken.config)).toEqual(['alpha']);
    expect(broken.errors.map((d) => d.code)).toEqual(['invalid-json']);
  });
});

describe('an entry that no longer validates keeps its last good definition', () => {
  it('while the rest of the same file applies', () => {
    const s = session({
      [USER]: json({
        mcpServers: { notes: { command: 'notes', args: ['--v1'] }, alpha: { command: 'alpha' } },
      }),
    });
    const bad = s.save({
      [USER]: json({
        mcpServers: { notes: { command: 'notes', args: 'not a list' }, beta: { command: 'beta' } },
      }),
    });
    expect(bad.errors.map((d) => [d.code, d.path])).toEqual([['invalid-server', 'mcpServers.notes.args']]);
    expect(server(bad.config, 'notes').args).toEqual(['--v1']);
    expect(bad.config.skipped.map((e) => e.name)).not.toContain('notes');
    expect(bad.diff.added.map((d) => d.name)).toEqual(['beta']);
    expect(bad.diff.removed.map((d) => d.name)).toEqual(['alpha']);
    expect(bad.diff.changed).toEqual([]);

    const fixed = s.save({
      [USER]: json({
        mcpServers: { notes: { command: 'notes', args: ['--v2'] }, beta: { command: 'beta' } },
      }),
    });
    expect(fixed.errors).toEqual([]);
    expect(fixed.diff.changed.map((d) => d.name)).toEqual(['notes']);
  });

  it('an error in another file’s override of a server the edit removed keeps nothing running', () => {
    const s = session({
      [USER]: json({ mcpServers: { alpha: { command: 'alpha' }, notes: { command: 'notes' } } }),
      [PROJECT]: json({ mcpServers: { notes: { exposure: 'direct' } } }),
    });
    const edited = s.save({ [USER]: json({ mcpServers: { alpha: { command: 'alpha' } } }) });
    expect(edited.errors.map((d) => [d.code, d.server])).toEqual([['missing-transport', 'notes']]);
    expect(edited.diff.removed.map((d) => d.name)).toEqual(['notes']);
  });

  it('a new server that never validated is skipped, as at a start, and said', () => {
    const s = session({ [USER]: json({ mcpServers: { alpha: { command: 'alpha' } } }) });
    const bad = s.save({
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a variable reference in config text
      [USER]: json({ mcpServers: { alpha: { command: 'alpha' }, beta: { command: '${UNSET_VAR}' } } }),
    });
    expect(bad.errors.map((d) => d.code)).toEqual(['missing-variable']);
    expect(names(bad.config)).toEqual(['alpha']);
    expect(bad.config.skipped.map((e) => e.name)).toEqual(['beta']);
  });

  it('a setting with a wrong value keeps its last good value; the file’s other settings and other files apply', () => {
    const s = session({
      [USER]: json({ settings: { requestTimeoutMs: 5000, idleTimeout: 5 }, mcpServers: {} }),
    });
    const bad = s.save({
      [USER]: json({ settings: { requestTimeoutMs: 'soon', idleTimeout: 7 }, mcpServers: {} }),
      'project/.mcp.json': json({ mcpServers: { local: { command: 'local' } } }),
    });
    expect(bad.errors.map((d) => [d.code, d.path])).toEqual([
      ['invalid-setting', 'settings.requestTimeoutMs'],
    ]);
    expect(bad.errors[0]!.message).toMatch(/its last good value is kept until it is fixed\.$/);
    expect(bad.config.settings.requestTimeoutMs).toBe(5000);
    expect(bad.config.settings.idleTimeoutMs).toBe(7 * 60_000);
    expect(names(bad.config)).toEqual(['local']);
    // Saved again still broken (another key changed): the value before the first bad save holds.
    const again = s.save({
      [USER]: json({ settings: { requestTimeoutMs: 'soon', idleTimeout: 8 }, mcpServers: {} }),
    });
    expect(again.config.settings.requestTimeoutMs).toBe(5000);
    expect(again.config.settings.idleTimeoutMs).toBe(8 * 60_000);
    const fixed = s.save({
      [USER]: json({ settings: { requestTimeoutMs: 9000, idleTimeout: 8 }, mcpServers: {} }),
    });
    expect(fixed.errors).toEqual([]);
    expect(fixed.config.settings.requestTimeoutMs).toBe(9000);
  });

  it('a setting that never had a good value is ignored, as at a start', () => {
    const s = session({ [USER]: json({ mcpServers: {} }) });
    const bad = s.save({ [USER]: json({ settings: { requestTimeoutMs: 'soon' }, mcpServers: {} }) });
    expect(bad.errors[0]!.message).toMatch(/this value is ignored\.$/);
    expect(bad.config.settings.requestTimeoutMs).toBe(s.l.load().settings.requestTimeoutMs);
  });
});

it('the same broken save gives the same errors (told once); an error of the start is not an edit’s', () => {
  const s = session({
    [USER]: json({ mcpServers: { alpha: { command: 'alpha' } } }),
    'project/.mcp.json': '{ nope',
  });
  const first = s.save({ [USER]: BROKEN });
  const second = s.save({ [USER]: BROKEN });
  expect(second.errors).toEqual(first.errors);
  expect(first.errors.map((d) => d.file)).toEqual([file(s.l, USER)]);
  expect(names(s.config)).toEqual(['alpha']);
});
