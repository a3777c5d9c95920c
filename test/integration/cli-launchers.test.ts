// A user's server never runs code the project chose (issue 34, finding 2; src/adapters/mcp/launcher-guard.ts).
// Each launcher below, started from the user's own config through the real CLI in a project folder with the
// shared host on (the default), meets a project that planted what that launcher would pick up from its
// working folder: a `<module>/__main__.py`, a bunfig.toml preload, node_modules/.bin shims, a .yarnrc
// `yarn-path`... The planted code writes a marker; the user's own code (in the home folder, or an absolute
// path) answers the call. The real deno, bun, pnpm and yarn come from scripts/provision-launchers.mjs.

import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { launcherPaths, launchersProvisioned } from '../../scripts/launcher-paths.mjs';
import { FIXTURE_DIR, stdioFixture } from '../fixtures/servers/spawn.ts';
import { hostsUnder, removeTempRoot } from '../support/hosts.ts';
import { runCliBin } from '../support/output-channels.ts';

let root: string;
let home: string;
let agentDir: string;
let project: string;
let bin: string;
let mark: string;

beforeAll(() => {
  if (!launchersProvisioned())
    throw new Error('deno, bun, pnpm and yarn are missing: run `node scripts/provision-launchers.mjs`');
});

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'pi-mcp-launchers-'));
  home = join(root, 'home');
  agentDir = join(home, '.pi', 'agent');
  project = join(root, 'project');
  bin = join(root, 'bin');
  mark = join(root, 'project-code-ran');
  for (const dir of [agentDir, project, bin]) mkdirSync(dir, { recursive: true });
  for (const [name, target] of [
    ['deno', launcherPaths.deno],
    ['bun', launcherPaths.bun],
    ['bunx', launcherPaths.bun],
    ['pnpm', launcherPaths.pnpm],
    ['yarn', launcherPaths.yarn],
  ] as const) {
    symlinkSync(target, join(bin, name));
    chmodSync(target, 0o755);
  }
});
afterEach(() => removeTempRoot(root));

/** The user's python module is in the repository: found through PYTHONPATH, and no bytecode written there. */
const userPython = { PYTHONPATH: join(FIXTURE_DIR, 'python'), PYTHONDONTWRITEBYTECODE: '1' };

/** Shell code that leaves the marker (and no server). */
const plantedShell = () => `#!/bin/sh\necho "$0" > '${mark}'\n`;
/** JavaScript (node, bun, deno) that leaves the marker. */
const plantedJs = () =>
  `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(mark)}, import.meta.url);\n`;

/** The user's own server as JavaScript: it runs the stdio fixture (any of node, bun, deno can run it). */
function relayJs(): string {
  const { command, args } = stdioFixture();
  return `import { spawnSync } from 'node:child_process';\nconst run = spawnSync(${JSON.stringify(command)}, ${JSON.stringify(args)}, { stdio: 'inherit' });\nprocess.exit(run.status ?? 1);\n`;
}
function relayShell(): string {
  const { command, args } = stdioFixture();
  return `#!/bin/sh\nexec ${[command, ...args].map((a) => `'${a}'`).join(' ')}\n`;
}

function write(file: string, text: string, mode = 0o644): void {
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, text, { mode });
}

/** An installed package `usermcp` with its bin under `dir`'s node_modules (the project's or the user's). */
function installUsermcp(dir: string, binText: string, file = 'bin.mjs'): void {
  const pkg = join(dir, 'node_modules', 'usermcp');
  write(join(dir, 'package.json'), JSON.stringify({ name: 'app', dependencies: { usermcp: '1.0.0' } }));
  write(
    join(pkg, 'package.json'),
    JSON.stringify({ name: 'usermcp', version: '1.0.0', bin: { usermcp: file } }),
  );
  write(join(pkg, file), binText, 0o755);
  mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(join('..', 'usermcp', file), join(dir, 'node_modules', '.bin', 'usermcp'));
}

function userServer(
  command: string,
  args: string[],
  env: Record<string, string> = {},
  settings: Record<string, unknown> = {},
): void {
  writeFileSync(
    join(agentDir, 'mcp.json'),
    JSON.stringify({ settings, mcpServers: { mine: { command, args, env, startupTimeoutMs: 30_000 } } }),
  );
}

/** `pi-mcp-actors call mine__echo` in the project: the user's server answers, the project's code never ran. */
async function callsTheUsersServer(inHost = true, path = `${bin}:${process.env.PATH}`): Promise<void> {
  const run = await runCliBin(
    ['call', 'mine__echo', '{"text":"hello"}'],
    { cwd: project, home, agentDir },
    '',
    {
      PATH: path,
    },
  );
  expect(existsSync(mark), `the project's code ran:\n${run.stdout}\n${run.stderr}`).toBe(false);
  expect(run.stdout, run.stderr).toMatch(/hello/);
  expect(run.code).toBe(0);
  // It ran in the shared host (or, with `sharedHost: false`, in the CLI's own process).
  expect(hostsUnder(root).length > 0).toBe(inHost);
}

// Each test starts the CLI, the shared host and a launcher (deno and bun cold): more than the default 30 s
// on a loaded machine.
describe('a user server never runs code from the project folder', { timeout: 60_000 }, () => {
  it('python3 -m: the user module, not the project’s <module>/__main__.py', async () => {
    write(join(project, 'usermod', '__main__.py'), `open(${JSON.stringify(mark)}, "w").write("ran")\n`);
    write(join(project, 'usermod', '__init__.py'), '');
    userServer('python3', ['-m', 'usermod'], userPython);
    await callsTheUsersServer();
  });

  it('python3 -m in the CLI’s own process (sharedHost: false)', async () => {
    write(join(project, 'usermod', '__main__.py'), `open(${JSON.stringify(mark)}, "w").write("ran")\n`);
    userServer('python3', ['-m', 'usermod'], userPython, { sharedHost: false });
    await callsTheUsersServer(false);
  });

  it('python3 with a relative script: the user’s file, not the project’s', async () => {
    write(join(project, 'server.py'), `open(${JSON.stringify(mark)}, "w").write("ran")\n`);
    write(join(home, 'server.py'), 'import runpy\nrunpy.run_module("usermod", run_name="__main__")\n');
    userServer('python3', ['server.py'], userPython);
    await callsTheUsersServer();
  });

  it('node with a relative script', async () => {
    write(join(project, 'server.mjs'), plantedJs());
    write(join(home, 'server.mjs'), relayJs());
    userServer('node', ['server.mjs']);
    await callsTheUsersServer();
  });

  it('a relative program (./server)', async () => {
    write(join(project, 'server'), plantedShell(), 0o755);
    write(join(home, 'server'), relayShell(), 0o755);
    userServer('./server', []);
    await callsTheUsersServer();
  });

  it('a program found through a relative PATH entry: the user’s, not the project’s', async () => {
    write(join(project, 'mcp-tool'), plantedShell(), 0o755);
    write(join(bin, 'mcp-tool'), relayShell(), 0o755);
    userServer('mcp-tool', []);
    await callsTheUsersServer(true, `.:${bin}:${process.env.PATH}`);
  });

  it('sh with a relative script', async () => {
    write(join(project, 'server.sh'), plantedShell());
    write(join(home, 'server.sh'), relayShell());
    userServer('sh', ['server.sh']);
    await callsTheUsersServer();
  });

  it('npm exec: the user’s installed bin, not the project’s node_modules/.bin', async () => {
    installUsermcp(project, plantedShell(), 'bin.sh');
    installUsermcp(home, relayShell(), 'bin.sh');
    userServer('npm', ['exec', '--offline', '--', 'usermcp']);
    await callsTheUsersServer();
  });

  it('deno run npm:<package>: not the project’s node_modules', async () => {
    installUsermcp(project, plantedJs());
    installUsermcp(home, relayJs());
    userServer('deno', ['run', '-A', 'npm:usermcp'], { DENO_DIR: join(root, 'deno-cache') });
    await callsTheUsersServer();
  });

  it('bun with an absolute script: the project’s bunfig.toml preload does not run', async () => {
    write(join(project, 'evil.mjs'), plantedJs());
    write(join(project, 'bunfig.toml'), 'preload = ["./evil.mjs"]\n');
    write(join(home, 'server.mjs'), relayJs());
    userServer('bun', [join(home, 'server.mjs')]);
    await callsTheUsersServer();
  });

  it('bunx: not the project’s node_modules/.bin', async () => {
    installUsermcp(project, plantedShell(), 'bin.sh');
    installUsermcp(home, relayShell(), 'bin.sh');
    userServer('bunx', ['usermcp']);
    await callsTheUsersServer();
  });

  it('pnpm exec: not the project’s node_modules/.bin', async () => {
    installUsermcp(project, plantedShell(), 'bin.sh');
    installUsermcp(home, relayShell(), 'bin.sh');
    userServer('pnpm', ['exec', 'usermcp']);
    await callsTheUsersServer();
  });

  it('yarn: the project’s .yarnrc yarn-path does not run', async () => {
    write(join(project, 'evil.cjs'), `require('node:fs').writeFileSync(${JSON.stringify(mark)}, 'ran');\n`);
    write(join(project, '.yarnrc'), 'yarn-path "./evil.cjs"\n');
    write(join(home, 'server.mjs'), relayJs());
    userServer('yarn', ['--silent', 'node', join(home, 'server.mjs')]);
    await callsTheUsersServer();
  });
});

describe('a project server the user allowed', { timeout: 60_000 }, () => {
  it('still runs in the project: python3 -m finds the project’s own module', async () => {
    mkdirSync(join(project, 'usermod'));
    copyFileSync(
      join(FIXTURE_DIR, 'python', 'usermod', '__main__.py'),
      join(project, 'usermod', '__main__.py'),
    );
    writeFileSync(
      join(project, '.mcp.json'),
      JSON.stringify({ mcpServers: { theirs: { command: 'python3', args: ['-m', 'usermod'] } } }),
    );
    const run = await runCliBin(['call', 'theirs__echo', '{"text":"in the project"}', '--trust-project'], {
      cwd: project,
      home,
      agentDir,
    });
    expect(run.stdout, run.stderr).toMatch(/usermod: in the project/);
    expect(hostsUnder(root).length).toBeGreaterThan(0);
  });
});
