// No CLI command waits on a host that cannot serve it (issue 35): a stopped host (SIGSTOP), something
// that accepts and never answers, an older build's hello, a host of the first host commit running in
// the agent dir, and an agent dir the host cannot write. Each `call` answers from a server run in the
// session, says once why, and ends within the deadlines below. Real processes throughout.

import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GREETING_DEADLINE_MS } from '../../../src/adapters/host/link-deadlines.ts';
import { openHost } from '../../../src/adapters/host/start-host.ts';
import { buildIdentity } from '../../../src/host/build-identity.ts';
import { prepareHostPlace } from '../../../src/host/host-place.ts';
import { hostDir } from '../../../src/host/paths.ts';
import { isAlive, stdioFixture } from '../../fixtures/servers/spawn.ts';
import { runCliProcess, type TimedCliRun } from '../../support/cli-process.ts';
import { eventually } from './harness.ts';

const REPO = resolve(import.meta.dirname, '../../..');
const ECHO = ['call', 'fx__echo', JSON.stringify({ text: 'answered' })];
const SAID = /The shared MCP host was not used/g;
/** Several real CLI runs per test on a loaded machine: a test's own time, not a deadline under test. */
const SEVERAL_RUNS_MS = 120_000;

let root: string;
let agentDir: string;
const pids = new Set<number>();
const listeners: Server[] = [];
const held: Socket[] = [];

beforeEach(() => {
  root = mkdtempSync(join(process.env.TMPDIR ?? '/tmp', 'pmh-deadline-'));
  agentDir = join(root, 'agent');
  mkdirSync(agentDir);
  writeFileSync(join(agentDir, 'mcp.json'), JSON.stringify({ mcpServers: { fx: stdioFixture() } }));
});

afterEach(async () => {
  for (const socket of held.splice(0)) socket.destroy();
  for (const server of listeners.splice(0)) await new Promise((resolve) => server.close(resolve));
  // A stopped host is woken and asked to stop (it closes its servers); killed if it does not.
  const signal = (sig: NodeJS.Signals) => {
    for (const pid of pids)
      try {
        process.kill(pid, sig);
      } catch {}
  };
  signal('SIGCONT');
  signal('SIGTERM');
  await eventually(() => expect([...pids].filter(isAlive)).toEqual([]), 10_000).catch(() =>
    signal('SIGKILL'),
  );
  await eventually(() => expect([...pids].filter(isAlive)).toEqual([]), 10_000);
  pids.clear();
  rmSync(root, { recursive: true, force: true });
});

const cli = (args: string[], env: Record<string, string> = {}): Promise<TimedCliRun> =>
  runCliProcess(args, {
    cwd: root,
    env: {
      HOME: root,
      TMPDIR: process.env.TMPDIR ?? '/tmp',
      PI_CODING_AGENT_DIR: agentDir,
      PI_MCP_ACTORS_HOST_IDLE_MS: '60000',
      ...env,
    },
  });

/** The same call with the servers in the session: what the machine takes for it now. */
async function inSessionBaseline(): Promise<number> {
  const dir = join(root, 'baseline');
  mkdirSync(dir);
  writeFileSync(
    join(dir, 'mcp.json'),
    JSON.stringify({ settings: { sharedHost: false }, mcpServers: { fx: stdioFixture() } }),
  );
  const run = await cli(ECHO, { PI_CODING_AGENT_DIR: dir });
  expect(run.stdout).toContain('answered');
  return run.ms;
}

/** Listens on this build's socket of the agent dir (private, as a host's), answering each line with `answer`. */
async function listenOnOurSocket(answer: (line: string, socket: Socket) => void): Promise<void> {
  const { socketPath } = prepareHostPlace(agentDir, buildIdentity());
  const server = createServer((socket) => {
    held.push(socket);
    socket.on('error', () => {});
    socket.on('data', (chunk) => {
      for (const line of String(chunk).split('\n').filter(Boolean)) answer(line, socket);
    });
  });
  listeners.push(server);
  const previous = process.umask(0o077);
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  process.umask(previous);
}

function expectAnsweredInSession(run: TimedCliRun, why: RegExp | string): void {
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toContain('answered');
  expect(run.stderr.match(SAID) ?? []).toHaveLength(1);
  expect(run.stderr).toMatch(why);
}

describe('a host that does not answer', () => {
  it(
    'stopped (SIGSTOP): a new call answers from the session, costing at most the greeting deadline',
    async () => {
      const warm = await cli(ECHO);
      expect(warm.stdout).toContain('answered');
      const client = await openHost({ agentDir, label: 'test' });
      const hostPid = (await client.status()).pid;
      client.close();
      pids.add(hostPid);
      const baseline = await inSessionBaseline();
      process.kill(hostPid, 'SIGSTOP');

      const run = await cli(ECHO);
      expectAnsweredInSession(run, `did not answer within ${GREETING_DEADLINE_MS / 1000} s`);
      console.log(`stopped host: call ${run.ms} ms; in-session baseline ${baseline} ms`);
      expect(run.ms).toBeLessThan(baseline + GREETING_DEADLINE_MS + 3_000);
    },
    SEVERAL_RUNS_MS,
  );

  it(
    'accepts and never answers: `call`, `status` and `host` each end with an answer',
    async () => {
      await listenOnOurSocket(() => {});
      const call = await cli(ECHO);
      expectAnsweredInSession(call, /did not answer/);
      const status = await cli(['status']);
      expect(status.code, status.stderr).toBe(0);
      expect(status.stdout).toMatch(/^fx: connected/m);
      expect(status.stderr.match(SAID) ?? []).toHaveLength(1);
      const host = await cli(['host']);
      expect(host.code).toBe(0);
      expect(host.stdout).toContain('No shared host is running');
      expect(host.stdout).toContain('did not answer');
      for (const run of [call, status, host]) expect(run.ms).toBeLessThan(40_000);
    },
    SEVERAL_RUNS_MS,
  );

  it(
    'answers a hello as the first host build did (no protocol, no build, no proof): not ours, said once',
    async () => {
      const received: string[] = [];
      await listenOnOurSocket((line, socket) => {
        received.push(line);
        const hello = JSON.parse(line) as { t: string };
        // Exactly the first build's welcome (d1284ba, src/host/host-server.ts).
        if (hello.t === 'hello')
          socket.write(`${JSON.stringify({ t: 'welcome', version: '0.1.0', pid: 1 })}\n`);
      });
      const run = await cli(ECHO);
      expectAnsweredInSession(run, /another build's \(version 0\.1\.0, protocol 1/);
      expect(received.map((line) => (JSON.parse(line) as { t: string }).t)).toEqual(['hello']);
      expect(run.ms).toBeLessThan(40_000);
    },
    SEVERAL_RUNS_MS,
  );
});

const FIRST_HOST_COMMIT = (() => {
  try {
    const log = execFileSync('git', ['log', '--format=%H', '--', 'src/host/host-server.ts'], {
      cwd: REPO,
      encoding: 'utf8',
    });
    return log.trim().split('\n').at(-1);
  } catch {
    return undefined;
  }
})();

describe.runIf(FIRST_HOST_COMMIT)('a host of the first host commit running in the agent dir', () => {
  it(
    'is never spoken to: the current build answers within 40 s (through its own host)',
    async () => {
      const build = join(root, 'first-host-build');
      mkdirSync(build);
      execFileSync('sh', ['-c', `git archive ${FIRST_HOST_COMMIT} | tar -x -C "${build}"`], { cwd: REPO });
      symlinkSync(join(REPO, 'node_modules'), join(build, 'node_modules'));
      const old = spawn(process.execPath, [join(build, 'bin', 'pi-mcp-actors.mjs'), 'host', 'serve'], {
        cwd: build,
        env: { ...process.env, PI_CODING_AGENT_DIR: agentDir, PI_MCP_ACTORS_HOST_IDLE_MS: '60000' },
        stdio: 'ignore',
      });
      pids.add(old.pid!);
      const oldSocket = join(hostDir(agentDir), 'host-0.1.0.sock');
      await eventually(() => expect(existsSync(oldSocket)).toBe(true), 30_000);

      const call = await cli(ECHO);
      expect(call.code, call.stderr).toBe(0);
      expect(call.stdout).toContain('answered');
      expect(call.ms).toBeLessThan(40_000);
      const status = await cli(['status']);
      expect(status.code, status.stderr).toBe(0);
      expect(status.ms).toBeLessThan(40_000);
      // The current build's own host served them; the old one is untouched, still there.
      const client = await openHost({ agentDir, label: 'test' });
      const current = await client.status();
      client.close();
      pids.add(current.pid);
      expect(current.pid).not.toBe(old.pid);
      expect(isAlive(old.pid!)).toBe(true);
      console.log(`first-host-commit host running: call ${call.ms} ms, status ${status.ms} ms`);
    },
    SEVERAL_RUNS_MS,
  );
});

describe.runIf(process.getuid?.() === 0)('an agent dir the host cannot write', () => {
  it(
    'the call answers from the session at once, and says why once',
    async () => {
      // Another uid (65533) whose agent dir is root's (readable, not writable); its HOME and TMPDIR are its own.
      const base = mkdtempSync('/tmp/pmh-readonly-');
      try {
        execFileSync('chmod', ['0755', base]);
        const home = join(base, 'home');
        mkdirSync(join(home, 'tmp'), { recursive: true });
        execFileSync('chown', ['-R', '65533:65533', home]);
        const readOnly = join(base, 'agent');
        mkdirSync(readOnly, { mode: 0o755 });
        writeFileSync(join(readOnly, 'mcp.json'), JSON.stringify({ mcpServers: { fx: stdioFixture() } }));
        const run = await runCliProcess(ECHO, {
          cwd: home,
          uid: 65533,
          env: { HOME: home, TMPDIR: join(home, 'tmp'), PI_CODING_AGENT_DIR: readOnly },
        });
        expectAnsweredInSession(run, /cannot be made \(EACCES\)/);
        expect(existsSync(hostDir(readOnly))).toBe(false);
        console.log(`unwritable agent dir: call ${run.ms} ms`);
        expect(run.ms).toBeLessThan(40_000);
      } finally {
        rmSync(base, { recursive: true, force: true });
      }
    },
    SEVERAL_RUNS_MS,
  );
});

describe('a long agent dir (its socket elsewhere)', () => {
  it(
    'two terminals with different TMPDIR reach the one host',
    async () => {
      const longDir = join(root, 'l'.repeat(90), 'agent');
      mkdirSync(longDir, { recursive: true });
      // Not inheriting the environment: TMPDIR would otherwise be part of what the server runs with.
      writeFileSync(
        join(longDir, 'mcp.json'),
        JSON.stringify({ mcpServers: { fx: { ...stdioFixture(), inheritEnv: false } } }),
      );
      const [one, two] = [join(root, 'tmp-one'), join(root, 'tmp-two')];
      for (const dir of [one, two]) mkdirSync(dir);
      const first = await cli(ECHO, { PI_CODING_AGENT_DIR: longDir, TMPDIR: one });
      expect(first.stdout).toContain('answered');
      const client = await openHost({ agentDir: longDir, label: 'test' });
      const host = await client.status();
      client.close();
      pids.add(host.pid);
      expect(host.socket.startsWith(longDir)).toBe(false);

      const second = await cli(ECHO, { PI_CODING_AGENT_DIR: longDir, TMPDIR: two });
      expect(second.code, second.stderr).toBe(0);
      expect(second.stderr).not.toMatch(SAID);
      const again = await openHost({ agentDir: longDir, label: 'test' });
      const status = await again.status();
      again.close();
      expect(status.pid).toBe(host.pid);
      expect(status.instances).toEqual([expect.objectContaining({ server: 'fx', attached: 0 })]);
    },
    SEVERAL_RUNS_MS,
  );
});
