// Only the user's own host is ever sent anything (issue 34, finding 1). With real processes and two
// user ids (`setpriv`, the tests run as root): another user (nobody, 65534) listening on the socket
// path of a long agent dir of a victim (uid 65533) receives nothing, and the victim's `call` answers
// from its own server within 40 s, saying once why the host was not used. And something of the user's
// own uid that cannot prove the key (it cannot read it) receives the hello and nothing else.

import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HostConnection } from '../../../src/adapters/host/host-connection.ts';
import { buildIdentity } from '../../../src/host/build-identity.ts';
import { prepareHostPlace } from '../../../src/host/host-place.ts';
import { hostDir, hostSocketPath } from '../../../src/host/paths.ts';

const INJECTION = 'IMPOSTOR SAYS'; // what test/fixtures/host/impostor-host.mjs answers every call with

import { stdioFixture } from '../../fixtures/servers/spawn.ts';
import { runCliProcess } from '../../support/cli-process.ts';
import { listed, useHostWorld } from './harness.ts';

const IMPOSTOR = resolve(import.meta.dirname, '../../fixtures/host/impostor-host.mjs');
const VICTIM = 65533;
const NOBODY = 65534;
const SECRET = 'wJalrXUtnFEMI-victim-secret-58c1';
const asRoot = process.getuid?.() === 0;

let root: string;
let impostor: ChildProcess | undefined;
const cleanUp: string[] = [];

beforeEach(() => {
  // Another uid cannot pass through the test run's private temp root: these tests use the system's.
  root = mkdtempSync('/tmp/pmh-trust-');
  execFileSync('chmod', ['0755', root]);
});

afterEach(() => {
  if (impostor?.pid) {
    try {
      process.kill(impostor.pid, 'SIGKILL');
    } catch {}
  }
  impostor = undefined;
  for (const path of cleanUp.splice(0)) rmSync(path, { recursive: true, force: true });
  rmSync(root, { recursive: true, force: true });
});

function config(agentDir: string): void {
  writeFileSync(
    join(agentDir, 'mcp.json'),
    JSON.stringify({
      mcpServers: { fx: { ...stdioFixture(), env: { AWS_SECRET_ACCESS_KEY: SECRET } } },
    }),
  );
}

/** Starts the impostor (as `uid` when given) on `socketPath`, recording what it receives in `record`. */
async function startImpostor(socketPath: string, record: string, mode: string, uid?: number): Promise<void> {
  writeFileSync(record, '');
  if (uid !== undefined) chownSync(record, uid, uid);
  const node = [process.execPath, IMPOSTOR, socketPath, record, mode];
  const [command, ...args] =
    uid === undefined ? node : ['setpriv', `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', ...node];
  impostor = spawn(command!, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve) => impostor!.stdout!.once('data', resolve));
}

describe.runIf(asRoot)('another user on the socket path of a long agent dir', () => {
  it('receives nothing; the CLI answers from its own server within 40 s and says so once', async () => {
    const home = join(root, 'home');
    mkdirSync(join(home, 'tmp'), { recursive: true });
    // Long enough that the socket cannot live in the agent dir.
    const agentDir = join(home, 'a'.repeat(60), 'b'.repeat(40), 'agent');
    mkdirSync(agentDir, { recursive: true });
    config(agentDir);
    execFileSync('chown', ['-R', `${VICTIM}:${VICTIM}`, home]);
    const socketPath = hostSocketPath(agentDir, buildIdentity(), { uid: VICTIM, env: {} });
    expect(socketPath.startsWith(`/tmp/pi-mcp-actors-${VICTIM}/`)).toBe(true);
    cleanUp.push(`/tmp/pi-mcp-actors-${VICTIM}`);
    // The impostor made the per-user folder first, open for the victim to connect.
    const record = join(root, 'received');
    await startImpostor(socketPath, record, '777', NOBODY);

    const run = await runCliProcess(['call', 'fx__echo', JSON.stringify({ text: 'from my own server' })], {
      cwd: home,
      uid: VICTIM,
      env: { HOME: home, TMPDIR: join(home, 'tmp'), PI_CODING_AGENT_DIR: agentDir },
      limitMs: 60_000,
    });

    const received = readFileSync(record, 'utf8');
    expect({ received }).toEqual({ received: '' });
    expect(received).not.toContain(SECRET);
    expect(run.ms).toBeLessThan(40_000);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('from my own server');
    expect(run.stdout + run.stderr).not.toContain('IMPOSTOR');
    expect(run.stdout + run.stderr).not.toContain(SECRET);
    const said = run.stderr.match(/The shared MCP host was not used/g) ?? [];
    expect(said).toHaveLength(1);
    expect(run.stderr).toContain(`/tmp/pi-mcp-actors-${VICTIM} belongs to another user (uid ${NOBODY}`);
    console.log(`impostor of another uid: the CLI ended in ${run.ms} ms`);
  });
});

describe('something on the socket that cannot prove the key', () => {
  it('hears the hello and nothing else; the CLI answers from its own server', async () => {
    const agentDir = mkdtempSync(join(root, 'agent-'));
    config(agentDir);
    const { socketPath } = prepareHostPlace(agentDir, buildIdentity());
    const record = join(root, 'received');
    // Private, as a real host's: the folder and socket checks pass, only the key is missing.
    await startImpostor(socketPath, record, '600');

    const run = await runCliProcess(['call', 'fx__echo', JSON.stringify({ text: 'from my own server' })], {
      cwd: root,
      env: { HOME: root, TMPDIR: process.env.TMPDIR ?? '/tmp', PI_CODING_AGENT_DIR: agentDir },
    });

    const received = readFileSync(record, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { t: string });
    expect(received.map((m) => m.t)).toEqual(['hello']);
    expect(JSON.stringify(received)).not.toContain(SECRET);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('from my own server');
    expect(run.stdout + run.stderr).not.toContain(INJECTION);
    expect(run.stderr.match(/The shared MCP host was not used/g) ?? []).toHaveLength(1);
    expect(run.stderr).toContain("without proving the user's host key");
    expect(existsSync(socketPath)).toBe(true);
  });
});

describe('in a Pi session (the real bridge)', () => {
  const worldOf = useHostWorld();

  it('a host folder open to others is refused: one warning, the servers run in the session', async () => {
    const world = worldOf();
    writeFileSync(
      join(world.agentDir, 'mcp.json'),
      JSON.stringify({
        mcpServers: {
          a: { ...stdioFixture(), inheritEnv: false, lifecycle: 'eager' },
          b: { ...stdioFixture(), inheritEnv: false, lifecycle: 'eager' },
        },
      }),
    );
    mkdirSync(hostDir(world.agentDir), { mode: 0o755 });
    chmodSync(hostDir(world.agentDir), 0o755);
    const { pi, runtime } = await world.piSession((s) => listed('a')(s) && listed('b')(s));

    const warnings = pi.notifications.filter((n) => n.message.includes('The shared MCP host was not used'));
    expect(warnings).toEqual([
      {
        message: expect.stringContaining(`${hostDir(world.agentDir)} is open to other users (mode 755)`),
        level: 'warning',
      },
    ]);
    for (const ref of Object.values(runtime.servers()))
      expect(ref.getSnapshot().context.connection).not.toBeInstanceOf(HostConnection);
    expect(await world.status()).toBeUndefined();
  });
});
