// What makes two sessions share one server instance: what it runs, not how a session shows it.

import { describe, expect, it } from 'vitest';
import { instanceRequest } from '../../../src/adapters/host/shared-connector.ts';
import { instanceKey, stableJson } from '../../../src/host/instance-key.ts';
import { keyDifference } from '../../../src/host/key-difference.ts';
import type { InstanceRequest } from '../../../src/host/protocol.ts';
import { definition } from '../../support/config.ts';

const base = (): InstanceRequest => ({
  definition: definition({ name: 'docs', command: 'srv', args: ['--x'], inheritEnv: false, env: { A: '1' } }),
  share: 'project',
  project: '/work/p',
  answers: { roots: false, elicit: true, sample: true },
});

describe('instanceKey', () => {
  it('ignores what only shapes a session’s view: name, source, exposure, idle timing', () => {
    const other = base();
    other.definition = {
      ...other.definition,
      name: 'renamed',
      source: { file: '/elsewhere/.mcp.json', kind: 'project', keyPath: 'mcpServers.renamed' },
      exposure: 'direct',
      idleTimeoutMs: 1,
      lifecycle: 'eager',
      excludeTools: ['x'],
    };
    expect(instanceKey(other)).toBe(instanceKey(base()));
  });

  it.each<[string, (r: InstanceRequest) => void]>([
    ['an env value', (r) => (r.definition = { ...r.definition, env: { A: '2' } })],
    ['an argument', (r) => (r.definition = { ...r.definition, args: ['--y'] })],
    ['a header', (r) => (r.definition = { ...r.definition, headers: { Authorization: 'Bearer b' } })],
    ['the project folder', (r) => (r.project = '/work/q')],
    ['the roots', (r) => (r.roots = [{ uri: 'file:///work/p' }])],
    ['the capabilities the session answers', (r) => (r.answers = { ...r.answers, sample: false })],
    ['the share scope', (r) => (r.share = 'user')],
  ])('changes with %s', (_what, change) => {
    const other = base();
    change(other);
    expect(instanceKey(other)).not.toBe(instanceKey(base()));
  });

  it('user scope: the project folder does not matter', () => {
    const a = { ...base(), share: 'user' as const };
    const b = { ...base(), share: 'user' as const, project: '/work/q' };
    expect(instanceKey(a)).toBe(instanceKey(b));
  });

  it('stableJson does not depend on key order', () => {
    expect(stableJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: undefined } })).toBe(
      stableJson({ a: { d: [1, { x: 1, y: 2 }] }, b: 1 }),
    );
  });
});

describe('instanceRequest', () => {
  it('inheritEnv: the session’s environment becomes env values (per-shell variables left out), cwd the project', () => {
    const saved = { ...process.env };
    process.env.SHARED_HOST_TEST = 'yes';
    process.env.OLDPWD = '/somewhere';
    try {
      const request = instanceRequest(
        definition({ name: 's', command: 'srv', inheritEnv: true, env: { A: '1' } }),
        'project',
        '/work/p',
        {},
      );
      expect(request.definition.inheritEnv).toBe(false);
      expect(request.definition.env).toMatchObject({ SHARED_HOST_TEST: 'yes', A: '1' });
      expect(request.definition.env.OLDPWD).toBeUndefined();
      // It runs in the project, which is not a cwd of its own: npx resolves a user package outside it.
      expect(request.definition.runsIn).toBe('/work/p');
      expect(request.definition.cwd).toBeUndefined();
      expect(request.answers).toEqual({ roots: false, elicit: false, sample: false });
    } finally {
      process.env = saved;
    }
  });

  it('without inheritEnv: the SDK’s default variables come from the session (its PATH), nothing else', () => {
    const saved = { ...process.env };
    process.env.PATH = '/session/venv/bin:/usr/bin';
    process.env.SHARED_HOST_TEST = 'yes';
    try {
      const request = instanceRequest(
        definition({ name: 's', command: 'srv', inheritEnv: false, env: { A: '1' } }),
        'project',
        '/work/p',
        {},
      );
      expect(request.definition.env.PATH).toBe('/session/venv/bin:/usr/bin');
      expect(request.definition.env.A).toBe('1');
      expect(request.definition.env.SHARED_HOST_TEST).toBeUndefined();
    } finally {
      process.env = saved;
    }
  });

  it('user scope: a server without a cwd starts in the home folder, not in one session’s project', () => {
    const request = instanceRequest(
      definition({ name: 's', command: 'srv', inheritEnv: false }),
      'user',
      '/work/p',
      {
        host: { roots: () => [{ uri: 'file:///work/p' }], elicit: async () => ({ action: 'decline' }) },
      },
    );
    expect(request.definition.runsIn).not.toBe('/work/p');
    expect(request.definition.cwd).toBeUndefined();
    expect(request.project).toBeUndefined();
    expect(request.roots).toEqual([{ uri: 'file:///work/p' }]);
    expect(request.answers).toEqual({ roots: true, elicit: true, sample: false });
  });
});

describe('per-terminal variables', () => {
  it.each([
    'TERM',
    'COLORTERM',
    'TMUX',
    'TMUX_PANE',
    'TERM_PROGRAM',
    'VSCODE_GIT_IPC_HANDLE',
    'ITERM_SESSION_ID',
    'KONSOLE_DBUS_WINDOW',
    'SSH_TTY',
    'WINDOWID',
    'STARSHIP_SESSION_KEY',
    'KITTY_PUBLIC_KEY',
    '_P9K_TTY',
  ])('%s is not part of the key', (name) => {
    const other = base();
    other.definition = { ...other.definition, env: { A: '1', [name]: 'this terminal' } };
    expect(instanceKey(other)).toBe(instanceKey(base()));
  });

  it.each(['DISPLAY', 'WAYLAND_DISPLAY', 'SSH_AUTH_SOCK', 'PATH', 'LANG'])('%s is', (name) => {
    const other = base();
    other.definition = { ...other.definition, env: { A: '1', [name]: 'x' } };
    expect(instanceKey(other)).not.toBe(instanceKey(base()));
  });
});

describe('keyDifference', () => {
  it('names the env variables, never their values, and the other parts', () => {
    const other = base();
    other.definition = { ...other.definition, env: { A: 'secret-2', B: 'x', TERM: 'dumb' }, args: ['--y'] };
    other.project = '/work/q';
    other.answers = { ...other.answers, sample: false };
    const parts = keyDifference(base(), other);
    expect(parts).toEqual(['arguments', 'env A', 'env B', 'project folder', 'answers sampling']);
    expect(JSON.stringify(parts)).not.toContain('secret');
    expect(keyDifference(base(), base())).toEqual([]);
  });
});
