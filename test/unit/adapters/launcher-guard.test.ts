// Where a stdio server starts (src/adapters/mcp/launcher-guard.ts): the rules per launcher, and the table
// in docs/security.md kept in step with LAUNCHERS. The real launchers are run in
// test/integration/cli-launchers.test.ts.

import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  guardLaunch,
  LAUNCHERS,
  launcherOf,
  PROJECT_DIR_VARIABLE,
  RELATIVE_PROGRAM,
} from '../../../src/adapters/mcp/launcher-guard.ts';

const home = mkdtempSync(join(tmpdir(), 'pi-mcp-guard-home-'));
const project = '/work/repo';
const env = { PATH: '/usr/bin', HOME: home };
const launch = (command: string, args: string[], extra: Record<string, unknown> = {}) =>
  guardLaunch({ command, args, ...extra }, env, home, project);

describe('guardLaunch', () => {
  it('starts a user python server in the home folder, with the project handed over', () => {
    expect(launch('python3', ['-m', 'mod'])).toEqual({
      cwd: home,
      env: { ...env, [PROJECT_DIR_VARIABLE]: project },
    });
    expect(launch('/usr/local/bin/python3.12', ['-c', 'x']).cwd).toBe(home);
  });

  it('takes the project from runsIn (a host instance) rather than its own folder', () => {
    const moved = guardLaunch({ command: 'uvx', args: ['tool'], runsIn: '/other' }, env, home, project);
    expect(moved).toMatchObject({ cwd: home, env: { [PROJECT_DIR_VARIABLE]: '/other' } });
  });

  it('leaves a server the project defined, or one with the user’s own cwd, where it was', () => {
    expect(launch('python3', ['-m', 'mod'], { fromProject: true, runsIn: project })).toEqual({
      cwd: project,
      env,
    });
    expect(launch('python3', ['-m', 'mod'], { cwd: '/mine' })).toEqual({ cwd: '/mine', env });
  });

  it('leaves programs that read nothing from the folder in it', () => {
    expect(launch('/opt/bin/github-mcp-server', ['stdio'])).toEqual({ env });
    expect(launch('node', ['/opt/srv/index.js'], { runsIn: project })).toEqual({ cwd: project, env });
    expect(launch('npx', ['-y', 'pkg'])).toEqual({ env });
  });

  it('moves node unless its script is absolute with nothing relative before it', () => {
    for (const args of [
      ['server.js'],
      ['-e', 'require("x")'],
      ['--import', 'tsx', '/abs/s.js'],
      ['--import=tsx', '/abs/s.js'],
      ['--env-file=.env', '/abs/s.js'],
      ['-r', './hook', '/abs/s.js'],
      [],
    ])
      expect(launch('node', args).cwd, args.join(' ')).toBe(home);
    expect(launch('node', ['--max-old-space-size=4096', '/abs/s.js']).cwd).toBeUndefined();
  });

  it('drops relative PATH entries of a user server, which would find the project’s programs', () => {
    const dotted = { PATH: '.:/usr/bin::bin:/bin' };
    expect(guardLaunch({ command: 'git-mcp', args: [] }, dotted, home, project).env.PATH).toBe(
      '/usr/bin:/bin',
    );
    expect(guardLaunch({ command: 'python3', args: [] }, dotted, home, project).env.PATH).toBe(
      '/usr/bin:/bin',
    );
    expect(
      guardLaunch({ command: 'git-mcp', args: [], fromProject: true }, dotted, home, project).env.PATH,
    ).toBe(dotted.PATH);
  });

  it('without a home folder, starts in the file system’s root', () => {
    expect(guardLaunch({ command: 'deno', args: [] }, env, join(home, 'gone'), project).cwd).toBe('/');
  });

  it('sees through `env VAR=… program` and names a relative program as the folder’s', () => {
    expect(launcherOf('env', ['-i', 'A=1', 'deno', 'run', 'x'])?.label).toBe('`deno`');
    expect(launcherOf('./server', [])).toBe(RELATIVE_PROGRAM);
    expect(launcherOf('bin/server', [])).toBe(RELATIVE_PROGRAM);
    expect(launcherOf('BUNX.EXE', [])?.label).toMatch(/bunx/);
    expect(launcherOf('pythonista', [])).toBeUndefined();
  });
});

describe('docs/security.md', () => {
  it('shows every launcher with what it reads and what we do', () => {
    const docs = readFileSync(join(import.meta.dirname, '../../../docs/security.md'), 'utf8');
    for (const row of [...LAUNCHERS, RELATIVE_PROGRAM])
      expect(docs).toContain(`| ${row.label} | ${row.reads} | ${row.we} |`);
  });
});
