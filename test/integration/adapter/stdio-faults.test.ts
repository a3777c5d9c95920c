// The adapter against faulty stdio servers: crashes, hangs, slow starts, missing commands, and the
// process-group guarantee that nothing (grandchildren included) survives close, abort or a crash.

import { mkdtempSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test, vi } from 'vitest';
import { CallError, createMcpConnector } from '../../../src/adapters/mcp/index.ts';
import { StderrTail } from '../../../src/adapters/mcp/stderr-tail.ts';
import { StdioProcess } from '../../../src/adapters/mcp/stdio-process.ts';
import { ConnectError } from '../../../src/ports/mcp.ts';
import { stdioDefinition } from '../../fixtures/servers/definitions.ts';
import {
  FIXTURE_DIR,
  isAlive,
  listDescendants,
  processesInGroup,
  REPO_ROOT,
  readProcState,
} from '../../fixtures/servers/spawn.ts';
import { recordEvents, rejectionOf, useAdapterHarness } from './harness.ts';

const harness = useAdapterHarness();

/** Aborts `controller` once the test process has a child, i.e. once the server was spawned. */
async function abortOnceSpawned(controller: AbortController): Promise<void> {
  await vi.waitFor(() => expect(listDescendants(process.pid).length).toBeGreaterThan(0), { interval: 10 });
  controller.abort(new Error('startup timeout'));
}

async function grandchildPid(tail: () => string): Promise<number> {
  let pid = 0;
  await vi.waitFor(() => {
    const match = /GRANDCHILD (\d+)/.exec(tail());
    expect(match).not.toBeNull();
    pid = Number(match![1]);
  });
  return pid;
}

describe('startup failures', () => {
  test('a server that exits on start: kind exited, with the exit code and the stderr tail', async () => {
    const error = await rejectionOf(harness.connect(stdioDefinition(['--crash-on-start'])));
    expect(error).toBeInstanceOf(ConnectError);
    expect(error.kind).toBe('exited');
    expect(error.message).toMatch(/"fixture-stdio" exited with code 3 .*during startup/);
    expect(error.stderrTail).toContain('fatal: fixture refuses to start (--crash-on-start)');
    expect(listDescendants(process.pid)).toEqual([]);
  });

  test('an exit that happened while the event loop was busy still counts within the wait', async () => {
    const child = new StdioProcess({
      // A single-threaded process: a Node child shows as a zombie while its other threads still run.
      command: '/bin/sh',
      args: ['-c', 'exit 3'],
      env: { PATH: process.env.PATH ?? '' },
      tail: new StderrTail(),
    });
    await child.start();
    const waited = child.waitForExit(5);
    // Busy until the child is a zombie and the wait's own timer is due, as on a loaded machine: the
    // timer then runs before the exit event is read.
    const started = performance.now();
    while (readProcState(child.pid!) !== 'Z' || performance.now() - started < 20) {
      if (performance.now() - started > 10_000) throw new Error('the child did not exit');
    }
    expect(await waited).toBe(true);
    expect(child.exitInfo).toMatchObject({ code: 3, unexpected: true });
  });

  test('an exit after the server closed its stdin counts as its own, though a stop was asked for meanwhile', async () => {
    // What the SDK does when the initialize write meets EPIPE: it closes the transport (stop), and the
    // server's own exit may be read only after that. This server exits once the file `go` exists.
    const dir = mkdtempSync(join(tmpdir(), 'pi-mcp-stdin-closed-'));
    const go = join(dir, 'go');
    const child = new StdioProcess({
      command: '/bin/sh',
      args: ['-c', 'exec 0<&-; while [ ! -e "$1" ]; do sleep 0.01; done; exit 3', 'sh', go],
      env: { PATH: process.env.PATH ?? '' },
      tail: new StderrTail(),
      stdinGraceMs: 10_000,
    });
    try {
      await child.start();
      await vi.waitFor(() => expect(() => readlinkSync(`/proc/${child.pid}/fd/0`)).toThrow());
      await expect(child.write('{}\n')).rejects.toMatchObject({ code: 'EPIPE' });
      const stopping = child.stop();
      writeFileSync(go, '');
      await stopping;
      expect(child.exitInfo).toMatchObject({ code: 3, signal: null, unexpected: true });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a command that does not exist: kind spawn', async () => {
    const error = await rejectionOf(
      harness.connect(stdioDefinition([], { command: 'pi-mcp-no-such-command-here', args: [] })),
    );
    expect(error).toBeInstanceOf(ConnectError);
    expect(error.kind).toBe('spawn');
    expect(error.message).toMatch(/command not found: pi-mcp-no-such-command-here/);
  });

  test('a cwd that does not exist: kind config, nothing spawned', async () => {
    const error = await rejectionOf(
      harness.connect(stdioDefinition([], { cwd: join(REPO_ROOT, 'no-such-dir') })),
    );
    expect(error.kind).toBe('config');
    expect(error.message).toMatch(/cwd that is not a directory/);
  });

  test('hang on initialize: aborting the signal rejects with kind aborted and leaves no process', async () => {
    const controller = new AbortController();
    const connecting = harness.connect(stdioDefinition(['--hang-initialize']), { signal: controller.signal });
    await abortOnceSpawned(controller);
    const error = await rejectionOf(connecting);
    expect(error).toBeInstanceOf(ConnectError);
    expect(error.kind).toBe('aborted');
    // Checked right away: connect settles only once the processes are gone.
    expect(listDescendants(process.pid)).toEqual([]);
  });

  test('hang on initialize past startupTimeoutMs: kind timeout', async () => {
    const error = await rejectionOf(
      harness.connect(stdioDefinition(['--hang-initialize'], { startupTimeoutMs: 300 })),
    );
    expect(error.kind).toBe('timeout');
    expect(error.message).toMatch(/"[^"]+" did not finish starting within 300 ms/);
    expect(listDescendants(process.pid)).toEqual([]);
  });

  test('slow start past the timeout fails; within it, connects', async () => {
    const slow = await rejectionOf(
      harness.connect(stdioDefinition(['--slow-start-ms', '5000'], { startupTimeoutMs: 300 })),
    );
    expect(slow.kind).toBe('timeout');
    const connection = await harness.connect(stdioDefinition(['--slow-start-ms', '300']));
    expect(connection.catalog.tools.length).toBeGreaterThan(0);
  });

  test('an already-aborted signal rejects at once without spawning', async () => {
    const error = await rejectionOf(harness.connect(stdioDefinition(), { signal: AbortSignal.abort() }));
    expect(error.kind).toBe('aborted');
  });
});

describe('crash mid-call', () => {
  test('the caller gets kind closed with the exit code and stderr; the owner gets a closed event', async () => {
    const connection = await harness.connect(stdioDefinition(['--crash-on-call']));
    const events = recordEvents(connection);
    const error = await rejectionOf(connection.callTool('echo', { text: 'x' }));
    expect(error).toBeInstanceOf(CallError);
    expect(error.kind).toBe('closed');
    expect(error.message).toMatch(/exited with code 7/);
    expect(error.message).toMatch(/fatal: fixture crashed while running echo/);
    await vi.waitFor(() =>
      expect(events).toEqual([{ type: 'closed', error: expect.stringMatching(/exited with code 7/) }]),
    );
    expect(connection.stderrTail()).toContain('fatal: fixture crashed while running echo');
    const later = await rejectionOf(connection.callTool('echo', { text: 'again' }));
    expect(later.kind).toBe('closed');
    expect(later.message).toMatch(/is gone: exited with code 7/);
  });
});

describe('process groups: nothing survives', () => {
  test('close kills a grandchild the server spawned', async () => {
    const connection = await harness.connect(stdioDefinition(['--spawn-grandchild']));
    const grandchild = await grandchildPid(() => connection.stderrTail());
    expect(isAlive(grandchild)).toBe(true);
    expect(processesInGroup(connection.pid!).map((proc) => proc.pid)).toContain(grandchild);
    await connection.close();
    expect(isAlive(grandchild)).toBe(false);
    expect(processesInGroup(connection.pid!)).toEqual([]);
  });

  test('a crash kills the grandchild too', async () => {
    const connection = await harness.connect(stdioDefinition(['--spawn-grandchild']));
    const grandchild = await grandchildPid(() => connection.stderrTail());
    const events = recordEvents(connection);
    await rejectionOf(connection.callTool('crash', { code: 9 }));
    await vi.waitFor(() =>
      expect(events).toContainEqual({ type: 'closed', error: expect.stringMatching(/code 9/) }),
    );
    await vi.waitFor(() => expect(isAlive(grandchild)).toBe(false));
    expect(processesInGroup(connection.pid!)).toEqual([]);
  });

  test('aborting a hung connect kills the grandchild too', async () => {
    const controller = new AbortController();
    let tail = '';
    const connecting = harness.connect(stdioDefinition(['--spawn-grandchild', '--hang-initialize']), {
      signal: controller.signal,
      onStderr: (line) => {
        tail += `${line}\n`;
      },
    });
    const grandchild = await grandchildPid(() => tail);
    controller.abort();
    expect((await rejectionOf(connecting)).kind).toBe('aborted');
    expect(isAlive(grandchild)).toBe(false);
    expect(listDescendants(process.pid)).toEqual([]);
  });

  test('a server that ignores SIGTERM is SIGKILLed after the grace period', async () => {
    const connector = createMcpConnector({ stdinGraceMs: 50, killGraceMs: 300 });
    const connection = await harness.connect(stdioDefinition(['--ignore-sigterm', '--spawn-grandchild']), {
      connector,
    });
    const grandchild = await grandchildPid(() => connection.stderrTail());
    const pid = connection.pid!;
    await connection.close();
    expect(isAlive(pid)).toBe(false);
    expect(isAlive(grandchild)).toBe(false);
    expect(connection.stderrTail()).toContain('fixture: ignoring SIGTERM');
  });

  test('a wrapper that runs the real server as its child (like npx/uvx) leaves nothing behind', async () => {
    // The tsx CLI is such a wrapper: it spawns a second node process that runs the server.
    const definition = stdioDefinition([], {
      command: join(REPO_ROOT, 'node_modules/.bin/tsx'),
      args: [join(FIXTURE_DIR, 'stdio-server.ts'), '--name', 'wrapped'],
    });
    const connection = await harness.connect(definition);
    expect(connection.catalog.serverInfo?.name).toBe('wrapped');
    const group = processesInGroup(connection.pid!);
    expect(group.length).toBeGreaterThanOrEqual(2);
    await connection.close();
    expect(processesInGroup(connection.pid!)).toEqual([]);
    for (const proc of group) expect(isAlive(proc.pid)).toBe(false);
  });
});
