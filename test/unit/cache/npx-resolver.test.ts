import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveNpx } from '../../../src/adapters/mcp/npx-resolver.ts';
import { type FakePackage, fakeNpxInstall } from '../../fixtures/cache/npx-layout.ts';

const NOW = 1_760_000_000_000;
const HOUR = 60 * 60 * 1000;

let root: string;
let npmCache: string;
let cacheFile: string;
let cwd: string;
let home: string;
let nodePath: string;

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(join(tmpdir(), 'npx-resolver-')));
  npmCache = join(root, 'npm-cache');
  cacheFile = join(root, 'agent', 'mcp-npx-cache.json');
  cwd = join(root, 'work');
  home = join(root, 'home');
  nodePath = join(root, 'node-prefix', 'bin', 'node');
  for (const dir of [npmCache, cwd, home]) fs.mkdirSync(dir, { recursive: true });
});

afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

function resolve(
  args: string[],
  extra: { now?: number; env?: Record<string, string>; npmCacheDir?: string } = {},
) {
  return resolveNpx('npx', args, {
    cacheFile,
    cwd,
    nodePath,
    env: extra.env ?? { HOME: home },
    now: () => extra.now ?? NOW,
    ...('npmCacheDir' in extra
      ? extra.npmCacheDir
        ? { npmCacheDir: extra.npmCacheDir }
        : {}
      : { npmCacheDir: npmCache }),
  });
}

const serverJs: FakePackage = {
  name: 'some-mcp',
  version: '1.2.3',
  bin: { 'some-mcp': 'dist/index.js' },
  files: { 'dist/index.js': '#!/usr/bin/env node\nconsole.log("hi");\n' },
};

function pkgPath(installDir: string, name: string, file: string): string {
  return join(installDir, 'node_modules', ...name.split('/'), file);
}

describe('resolveNpx: how the binary is run', () => {
  it('runs a `#!/usr/bin/env node` script with node, passing the server args through', () => {
    const dir = fakeNpxInstall(npmCache, ['some-mcp'], [serverJs]);
    expect(resolve(['-y', 'some-mcp', '--root', '/data'])).toEqual({
      command: nodePath,
      args: [pkgPath(dir, 'some-mcp', 'dist/index.js'), '--root', '/data'],
      via: 'direct-node',
    });
  });

  it('runs an extensionless script with a node shebang with node', () => {
    const dir = fakeNpxInstall(
      npmCache,
      ['some-mcp'],
      [{ ...serverJs, bin: 'bin/cli', files: { 'bin/cli': '#!/usr/bin/node\nrequire("x")\n' } }],
    );
    expect(resolve(['some-mcp'])).toEqual({
      command: nodePath,
      args: [pkgPath(dir, 'some-mcp', 'bin/cli')],
      via: 'direct-node',
    });
  });

  it('keeps node flags from an `env -S node ...` shebang', () => {
    const dir = fakeNpxInstall(
      npmCache,
      ['some-mcp'],
      [{ ...serverJs, files: { 'dist/index.js': '#!/usr/bin/env -S node --no-warnings\n' } }],
    );
    expect(resolve(['some-mcp'])?.args).toEqual(['--no-warnings', pkgPath(dir, 'some-mcp', 'dist/index.js')]);
  });

  it('runs a .js file without a shebang with node', () => {
    fakeNpxInstall(npmCache, ['some-mcp'], [{ ...serverJs, files: { 'dist/index.js': 'console.log(1)\n' } }]);
    expect(resolve(['some-mcp'])?.via).toBe('direct-node');
  });

  it('runs an executable script with another interpreter directly', () => {
    const dir = fakeNpxInstall(
      npmCache,
      ['some-mcp'],
      [{ ...serverJs, bin: 'run.sh', files: { 'run.sh': '#!/bin/sh\necho hi\n' }, executable: ['run.sh'] }],
    );
    expect(resolve(['some-mcp', 'a'])).toEqual({
      command: pkgPath(dir, 'some-mcp', 'run.sh'),
      args: ['a'],
      via: 'direct-bin',
    });
  });

  it('falls back for a non-node script that is not executable', () => {
    fakeNpxInstall(
      npmCache,
      ['some-mcp'],
      [{ ...serverJs, bin: 'run.sh', files: { 'run.sh': '#!/bin/sh\n' } }],
    );
    expect(resolve(['some-mcp'])).toBeUndefined();
  });

  it('falls back for a file that is neither script nor known binary', () => {
    fakeNpxInstall(
      npmCache,
      ['some-mcp'],
      [{ ...serverJs, bin: 'bin/tool', files: { 'bin/tool': 'plain text' } }],
    );
    expect(resolve(['some-mcp'])).toBeUndefined();
  });

  it('falls back for a shebang with env options it cannot follow', () => {
    fakeNpxInstall(
      npmCache,
      ['some-mcp'],
      [{ ...serverJs, files: { 'dist/index.js': '#!/usr/bin/env -i NODE_ENV=x node\n' } }],
    );
    expect(resolve(['some-mcp'])).toBeUndefined();
  });
});

describe('resolveNpx: which binary npm would pick', () => {
  it('takes the only bin of a scoped package even when its name differs', () => {
    const dir = fakeNpxInstall(
      npmCache,
      ['@acme/server-x@0.4.0'],
      [{ name: '@acme/server-x', version: '0.4.0', bin: { 'mcp-x': 'cli.js' }, files: { 'cli.js': '' } }],
    );
    expect(resolve(['-y', '@acme/server-x@0.4.0'])?.args).toEqual([pkgPath(dir, '@acme/server-x', 'cli.js')]);
  });

  it('takes the bin named like the package when there are several', () => {
    const dir = fakeNpxInstall(
      npmCache,
      ['some-mcp'],
      [
        {
          ...serverJs,
          bin: { helper: 'helper.js', 'some-mcp': 'main.js' },
          files: { 'helper.js': '', 'main.js': '' },
        },
      ],
    );
    expect(resolve(['some-mcp'])?.args).toEqual([pkgPath(dir, 'some-mcp', 'main.js')]);
  });

  it('falls back when several bins leave the choice open', () => {
    fakeNpxInstall(
      npmCache,
      ['some-mcp'],
      [{ ...serverJs, bin: { one: 'one.js', two: 'two.js' }, files: { 'one.js': '', 'two.js': '' } }],
    );
    expect(resolve(['some-mcp'])).toBeUndefined();
  });

  it('falls back when the package has no bin, or the bin file is missing', () => {
    fakeNpxInstall(npmCache, ['some-mcp'], [{ name: 'some-mcp', version: '1.2.3' }]);
    expect(resolve(['some-mcp'])).toBeUndefined();
    fakeNpxInstall(npmCache, ['other-mcp'], [{ name: 'other-mcp', version: '1.0.0', bin: 'gone.js' }]);
    expect(resolve(['other-mcp'])).toBeUndefined();
  });

  it('falls back when a bin points outside its package', () => {
    fakeNpxInstall(npmCache, ['some-mcp'], [{ ...serverJs, bin: { 'some-mcp': '../../../../escape.js' } }]);
    fs.writeFileSync(join(npmCache, 'escape.js'), '');
    expect(resolve(['some-mcp'])).toBeUndefined();
  });

  it('with -p, runs the named bin from the listed packages', () => {
    const dir = fakeNpxInstall(
      npmCache,
      ['tools-pkg@3.0.0', 'extra@1.0.0'],
      [
        {
          name: 'tools-pkg',
          version: '3.0.0',
          bin: { 'tool-a': 'a.js', 'tool-b': 'b.js' },
          files: { 'a.js': '', 'b.js': '' },
        },
        { name: 'extra', version: '1.0.0' },
      ],
    );
    expect(resolve(['-p', 'tools-pkg@3.0.0', '-p', 'extra@1.0.0', 'tool-b', 'x'])).toEqual({
      command: nodePath,
      args: [pkgPath(dir, 'tools-pkg', 'b.js'), 'x'],
      via: 'direct-node',
    });
  });

  it('with -p, falls back when no installed package provides the command', () => {
    fakeNpxInstall(
      npmCache,
      ['tools-pkg'],
      [{ name: 'tools-pkg', version: '3.0.0', bin: { 'tool-a': 'a.js' }, files: { 'a.js': '' } }],
    );
    expect(resolve(['-p', 'tools-pkg', 'tool-z'])).toBeUndefined();
  });

  it('with -p, finds a dependency bin that npm linked into .bin', () => {
    const dir = fakeNpxInstall(
      npmCache,
      ['wrapper'],
      [
        { name: 'wrapper', version: '1.0.0' },
        { name: 'inner', version: '2.0.0', bin: { 'inner-cli': 'cli.js' }, files: { 'cli.js': '' } },
      ],
    );
    expect(resolve(['-p', 'wrapper', 'inner-cli'])?.args).toEqual([pkgPath(dir, 'inner', 'cli.js')]);
  });
});

describe('resolveNpx: falls back whenever the installed copy may not be what npx would run', () => {
  it('requires the exact version asked for', () => {
    fakeNpxInstall(npmCache, ['some-mcp@1.2.3'], [{ ...serverJs, version: '1.2.4' }]);
    expect(resolve(['-y', 'some-mcp@1.2.3'])).toBeUndefined();
    fakeNpxInstall(npmCache, ['some-mcp@1.2.4'], [{ ...serverJs, version: '1.2.4' }]);
    expect(resolve(['-y', 'some-mcp@1.2.4'])?.via).toBe('direct-node');
  });

  it.each([['some-mcp@latest'], ['some-mcp@next'], ['some-mcp@^1.2.0'], ['some-mcp@1.x']])(
    'does not resolve the tag or range %s (npx would ask the registry)',
    (spec) => {
      fakeNpxInstall(npmCache, [spec], [serverJs]);
      expect(resolve(['-y', spec])).toBeUndefined();
    },
  );

  it('ignores an install for other specs (a bare name is not a pinned version)', () => {
    fakeNpxInstall(npmCache, ['some-mcp@1.2.3'], [serverJs]);
    expect(resolve(['some-mcp'])).toBeUndefined();
  });

  it('finds an install recorded under another directory name by its recorded specs', () => {
    fakeNpxInstall(npmCache, ['some-mcp'], [serverJs], { dirName: '0123456789abcdef' });
    expect(resolve(['some-mcp'])?.args[0]).toContain('0123456789abcdef');
  });

  it('does not trust an install that npm did not finish recording', () => {
    fakeNpxInstall(npmCache, ['some-mcp'], [serverJs], { recordSpecs: false });
    expect(resolve(['some-mcp'])).toBeUndefined();
  });

  it('does not use an install while npm holds its lock', () => {
    const dir = fakeNpxInstall(npmCache, ['some-mcp'], [serverJs]);
    fs.mkdirSync(join(dir, 'concurrency.lock'));
    expect(resolve(['some-mcp'])).toBeUndefined();
  });

  it('falls back when the project in cwd has its own copy (npx would run that)', () => {
    fakeNpxInstall(npmCache, ['some-mcp'], [serverJs]);
    fs.mkdirSync(join(cwd, 'node_modules', 'some-mcp'), { recursive: true });
    fs.writeFileSync(join(cwd, 'node_modules', 'some-mcp', 'package.json'), '{"name":"some-mcp"}');
    const nested = join(cwd, 'src', 'deep');
    fs.mkdirSync(nested, { recursive: true });
    expect(
      resolveNpx('npx', ['some-mcp'], {
        cacheFile,
        cwd: nested,
        nodePath,
        npmCacheDir: npmCache,
        env: { HOME: home },
      }),
    ).toBeUndefined();
  });

  it('falls back when a global binary of that name exists (npx would run that)', () => {
    fakeNpxInstall(npmCache, ['some-mcp'], [serverJs]);
    fs.mkdirSync(join(root, 'node-prefix', 'bin'), { recursive: true });
    fs.writeFileSync(join(root, 'node-prefix', 'bin', 'some-mcp'), '');
    expect(resolve(['some-mcp'])).toBeUndefined();
  });

  it('resolves nothing for commands other than npx', () => {
    fakeNpxInstall(npmCache, ['some-mcp'], [serverJs]);
    expect(
      resolveNpx('node', ['some-mcp'], { cacheFile, cwd, nodePath, npmCacheDir: npmCache }),
    ).toBeUndefined();
    expect(
      resolveNpx('/usr/bin/npx', ['some-mcp'], {
        cacheFile,
        cwd,
        nodePath,
        npmCacheDir: npmCache,
        env: { HOME: home },
      })?.via,
    ).toBe('direct-node');
  });

  it('returns undefined when there is no _npx directory at all', () => {
    expect(resolve(['some-mcp'])).toBeUndefined();
  });
});

describe('resolveNpx: where npm keeps its cache', () => {
  it('reads npm_config_cache from the environment (any case)', () => {
    fakeNpxInstall(npmCache, ['some-mcp'], [serverJs]);
    expect(
      resolve(['some-mcp'], { npmCacheDir: '', env: { HOME: home, NPM_CONFIG_CACHE: npmCache } })?.via,
    ).toBe('direct-node');
  });

  it('reads cache= from the user .npmrc', () => {
    fakeNpxInstall(npmCache, ['some-mcp'], [serverJs]);
    fs.writeFileSync(join(home, '.npmrc'), `registry=https://registry.npmjs.org/\ncache=${npmCache}\n`);
    expect(resolve(['some-mcp'], { npmCacheDir: '' })?.via).toBe('direct-node');
  });

  it('defaults to ~/.npm', () => {
    fakeNpxInstall(join(home, '.npm'), ['some-mcp'], [serverJs]);
    expect(resolve(['some-mcp'], { npmCacheDir: '' })?.via).toBe('direct-node');
  });

  it('falls back when the configured cache uses a variable it cannot expand', () => {
    fakeNpxInstall(join(home, '.npm'), ['some-mcp'], [serverJs]);
    // An npmrc ${VAR} reference (split so it is not mistaken for a template literal).
    fs.writeFileSync(join(home, '.npmrc'), ['cache=$', '{XDG_CACHE_HOME}/npm\n'].join(''));
    expect(resolve(['some-mcp'], { npmCacheDir: '' })).toBeUndefined();
  });
});

describe('resolveNpx: the 24 h resolution cache', () => {
  it('remembers a resolution for 24 hours, then looks again', () => {
    const dir = fakeNpxInstall(npmCache, ['some-mcp'], [serverJs]);
    const first = resolve(['some-mcp', 'a']);
    expect(first?.via).toBe('direct-node');
    const stored = JSON.parse(fs.readFileSync(cacheFile, 'utf8'));
    expect(stored.version).toBe(1);
    const [key, entry] = Object.entries<any>(stored.entries)[0]!;
    expect(key.startsWith('pi-mcp-actors:')).toBe(true);
    expect(entry).toMatchObject({
      resolvedBin: first?.args[0],
      resolvedAt: NOW,
      isJs: true,
      packageVersion: '1.2.3',
    });

    // Without the install record a fresh lookup would fail; the remembered one still answers.
    fs.rmSync(join(dir, 'package.json'));
    expect(resolve(['some-mcp', 'b'], { now: NOW + 23 * HOUR })).toEqual({
      ...first,
      args: [first!.args[0], 'b'],
    });
    expect(resolve(['some-mcp'], { now: NOW + 24 * HOUR })).toBeUndefined();
  });

  it('does not use a remembered binary that has disappeared', () => {
    const dir = fakeNpxInstall(npmCache, ['some-mcp'], [serverJs]);
    expect(resolve(['some-mcp'])).toBeDefined();
    fs.rmSync(dir, { recursive: true });
    expect(resolve(['some-mcp'])).toBeUndefined();
  });

  it('keeps entries written by other tools and survives a garbage cache file', () => {
    fakeNpxInstall(npmCache, ['some-mcp'], [serverJs]);
    fs.mkdirSync(join(root, 'agent'), { recursive: true });
    const foreign = { resolvedBin: '/x/bin', resolvedAt: NOW, isJs: true };
    fs.writeFileSync(cacheFile, JSON.stringify({ version: 1, entries: { '["npx","-y","x"]': foreign } }));
    expect(resolve(['some-mcp'])).toBeDefined();
    expect(JSON.parse(fs.readFileSync(cacheFile, 'utf8')).entries['["npx","-y","x"]']).toEqual(foreign);

    fs.writeFileSync(cacheFile, '{"version":1,"entr');
    expect(resolve(['some-mcp'])).toBeDefined();
    expect(Object.keys(JSON.parse(fs.readFileSync(cacheFile, 'utf8')).entries)).toHaveLength(1);
  });

  it('resolves even when the cache file cannot be written', () => {
    fakeNpxInstall(npmCache, ['some-mcp'], [serverJs]);
    fs.writeFileSync(join(root, 'agent'), 'not a directory');
    expect(resolve(['some-mcp'])?.via).toBe('direct-node');
  });
});
