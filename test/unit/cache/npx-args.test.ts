import { describe, expect, it } from 'vitest';
import { isNpxCommand, npxInstallDirName, parseNpxArgs } from '../../../src/adapters/mcp/npx-resolver.ts';

describe('parseNpxArgs', () => {
  it.each([
    [
      ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'],
      {
        packageSpec: '@modelcontextprotocol/server-filesystem',
        binName: 'server-filesystem',
        rest: ['/tmp'],
      },
    ],
    [
      ['--yes', 'some-mcp@1.2.3', '--port', '3'],
      { packageSpec: 'some-mcp@1.2.3', binName: 'some-mcp', rest: ['--port', '3'] },
    ],
    [['@scope/tool@2.0.0-beta.1'], { packageSpec: '@scope/tool@2.0.0-beta.1', binName: 'tool', rest: [] }],
    [
      ['some-mcp', '-y', '--', 'x'],
      { packageSpec: 'some-mcp', binName: 'some-mcp', rest: ['-y', '--', 'x'] },
    ],
    [['-y', '--', 'some-mcp', '--flag'], { packageSpec: 'some-mcp', binName: 'some-mcp', rest: ['--flag'] }],
    [['-q', '--loglevel', 'silent', 'some-mcp'], { packageSpec: 'some-mcp', binName: 'some-mcp', rest: [] }],
    [
      ['--loglevel=error', '--yes=true', 'some-mcp'],
      { packageSpec: 'some-mcp', binName: 'some-mcp', rest: [] },
    ],
  ])('positional package %j', (args, expected) => {
    expect(parseNpxArgs(args)).toEqual({ ...expected, extraPackages: [], binFromManifest: true });
  });

  it.each([
    [['-p', 'pkg-a', 'cmd', 'x'], { packageSpec: 'pkg-a', binName: 'cmd', rest: ['x'], extraPackages: [] }],
    [
      ['--package=pkg-a@1.0.0', 'cmd'],
      { packageSpec: 'pkg-a@1.0.0', binName: 'cmd', rest: [], extraPackages: [] },
    ],
    [['-p=pkg-a', 'cmd'], { packageSpec: 'pkg-a', binName: 'cmd', rest: [], extraPackages: [] }],
    [
      ['-y', '--package', '@s/a', '-p', 'b@2.0.0', '--', 'cmd', '--verbose'],
      { packageSpec: '@s/a', binName: 'cmd', rest: ['--verbose'], extraPackages: ['b@2.0.0'] },
    ],
  ])('explicit packages %j', (args, expected) => {
    expect(parseNpxArgs(args)).toEqual({ ...expected, binFromManifest: false });
  });

  it.each([
    [[]],
    [['-y']],
    [['-c', 'echo hi']],
    [['--call=echo hi']],
    [['--registry', 'https://registry.example', 'pkg']],
    [['--cache', '/elsewhere', 'pkg']],
    [['--no-install', 'pkg']],
    [['--yes=false', 'pkg']],
    [['-yq', 'pkg']],
    [['github:user/repo']],
    [['user/repo']],
    [['./local-dir']],
    [['https://example.invalid/pkg.tgz']],
    [['pkg@']],
    [['-p']],
    [['-p', 'pkg-a']],
    [['-p', '--yes', 'cmd']],
    [['-p', 'pkg-a', './script.js']],
    [['-p', 'git+https://example.invalid/x.git', 'cmd']],
  ])('is unsure about %j', (args) => {
    expect(parseNpxArgs(args)).toBeUndefined();
  });
});

describe('npxInstallDirName', () => {
  it('matches the directory npm created for a real install', () => {
    // Observed: `npm exec --package=@modelcontextprotocol/server-everything@2026.8.31` with npm 11.
    expect(npxInstallDirName(['@modelcontextprotocol/server-everything@2026.8.31'])).toBe('a705c79b42eea4c8');
  });

  it('does not depend on the order of the packages', () => {
    expect(npxInstallDirName(['b', 'a@1.0.0'])).toBe(npxInstallDirName(['a@1.0.0', 'b']));
    expect(npxInstallDirName(['a'])).not.toBe(npxInstallDirName(['a@1.0.0']));
  });
});

describe('isNpxCommand', () => {
  it.each(['npx', '/usr/local/bin/npx', 'npx.cmd', 'C:/node/npx.exe'])('%s is npx', (command) => {
    expect(isNpxCommand(command)).toBe(true);
  });
  it.each(['node', 'npm', 'npx-like', 'uvx'])('%s is not', (command) => {
    expect(isNpxCommand(command)).toBe(false);
  });
});
