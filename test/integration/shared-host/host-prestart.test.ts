// The shared host starts while the model thinks (issue 35): once a session's first model request is on
// its way, before the runtime loads or any tool is called, as a server starts at ToolSearch; before the
// request nothing of it runs. From a loaded config and from the start record alike. The wake timer runs
// on XState's SimulatedClock and never fires, so nothing else (the runtime's start, a connect) can
// have started the host.

import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { HostClient } from '../../../src/adapters/host/host-client.ts';
import { defaultLabel } from '../../../src/adapters/host/line-ahead.ts';
import { sharedHostConnector } from '../../../src/adapters/host/shared-connector.ts';
import { hostComingUp, spawnHost, startHostSoon } from '../../../src/adapters/host/spawn-host.ts';
import { attachToHost } from '../../../src/adapters/host/start-host.ts';
import { connectMcp } from '../../../src/adapters/mcp/index.ts';
import { bridgePi, type PiBridge } from '../../../src/adapters/pi/bridge.ts';
import { START_RECORD_FILE_NAME } from '../../../src/adapters/pi/start-record.ts';
import { configHash, createCacheStore } from '../../../src/catalog/cache.ts';
import { loadConfig } from '../../../src/config/load.ts';
import type { ServerDefinition } from '../../../src/config/types.ts';
import { prepareHostPlace } from '../../../src/host/host-place.ts';
import type { HostStatus } from '../../../src/host/protocol.ts';
import type { Connection } from '../../../src/ports/connection.ts';
import { readProcState, stdioFixture } from '../../fixtures/servers/spawn.ts';
import { RecordingPi } from '../../support/recording-pi.ts';
import { eventually, type HostWorld, sessionsOf, textOf, useHostWorld } from './harness.ts';

const world = useHostWorld();
const require = createRequire(import.meta.url);

/** One shared server whose tools are cached: the session's start connects nothing. Its definition. */
async function configure(w: HostWorld, settings: Record<string, unknown> = {}): Promise<ServerDefinition> {
  writeFileSync(
    join(w.agentDir, 'mcp.json'),
    JSON.stringify({ settings, mcpServers: { notes: stdioFixture(['--name', 'notes']) } }),
  );
  const env = { PI_CODING_AGENT_DIR: w.agentDir };
  const config = loadConfig({
    agentDir: w.agentDir,
    cwd: w.project,
    homeDir: w.root,
    env,
    projectTrusted: true,
  });
  const tools = [{ name: 'add_note', description: 'Adds a note', inputSchema: { type: 'object' } }];
  await createCacheStore({ file: join(w.agentDir, 'mcp-cache.json') }).write(
    Object.fromEntries(
      config.servers.map((d) => [
        d.name,
        { configHash: configHash(d), tools, resources: [], cachedAt: Date.now() },
      ]),
    ),
  );
  return config.servers[0]!;
}

/** This process's first connect of `definition` through the host, as a Pi session's (never in the session). */
function connectThroughHost(w: HostWorld, definition: ServerDefinition): Promise<Connection> {
  const connectorFor = sharedHostConnector({ agentDir: w.agentDir }, () => {
    throw new Error('ran in the session');
  });
  return connectorFor(w.project)(definition, { signal: new AbortController().signal });
}

/** A Pi session up to its first model request being prepared (not yet sent). */
async function preparedSession(w: HostWorld): Promise<{ pi: RecordingPi; bridge: PiBridge }> {
  const pi = new RecordingPi(w.project);
  const bridge = bridgePi(pi, {
    connector: connectMcp,
    env: { PI_CODING_AGENT_DIR: w.agentDir },
    homeDir: w.root,
    clock: new SimulatedClock(),
  });
  await pi.emit('session_start', { reason: 'startup' });
  await pi.emit('agent_start', {});
  return { pi, bridge };
}

/** The host answers, with nothing attached to it: no session connected a server. */
async function hostUpWithNothingAttached(w: HostWorld): Promise<number> {
  const status = await eventually(async () => {
    const s = await w.status();
    expect(s).toBeDefined();
    return s!;
  });
  expect(status.instances).toEqual([]);
  return status.pid;
}

/** The session's one line in the host, ready ahead of use: proven, this process's, nothing attached. */
async function lineReadyAhead(w: HostWorld): Promise<HostStatus['clients'][number]> {
  return eventually(async () => {
    const sessions = sessionsOf(await w.status());
    expect(sessions).toMatchObject([{ pid: process.pid, attachments: 0 }]);
    return sessions[0]!;
  });
}

it('starts the host once the first request is on its way, before any call', async () => {
  const w = world();
  await configure(w);
  const { pi, bridge } = await preparedSession(w);
  expect(bridge.startedFrom()).toBe('load');
  expect(await w.status()).toBeUndefined();
  await pi.emit('before_provider_request', { payload: {} });
  await hostUpWithNothingAttached(w);
});

it('from the start record too: a session that prepared its request from the record starts the host', async () => {
  const w = world();
  await configure(w);
  const first = await preparedSession(w);
  await first.pi.emit('before_provider_request', { payload: {} });
  const pid = await hostUpWithNothingAttached(w);
  await eventually(() => expect(existsSync(join(w.agentDir, START_RECORD_FILE_NAME))).toBe(true));
  process.kill(pid, 'SIGTERM');
  await eventually(() => expect(readProcState(pid)).toBeUndefined());

  const second = await preparedSession(w);
  expect(second.bridge.startedFrom()).toBe('record');
  expect(await w.status()).toBeUndefined();
  await second.pi.emit('before_provider_request', { payload: {} });
  await hostUpWithNothingAttached(w);
});

it("the host a session starts is born with the session's line: the first connect takes it, its attach goes out at once", async () => {
  const w = world();
  const notes = await configure(w);
  const { pi } = await preparedSession(w);
  await pi.emit('before_provider_request', { payload: {} });
  await hostUpWithNothingAttached(w);
  // The birth line.
  const ahead = await lineReadyAhead(w);

  const connection = await connectThroughHost(w, notes);
  try {
    const result = await connection.callTool('echo', { text: 'ahead' });
    expect(textOf(result)).toBe('ahead');
    // The same line (its id) now carries the attachment; no second line was opened.
    expect(sessionsOf(await w.status())).toMatchObject([{ id: ahead.id, attachments: 1 }]);
  } finally {
    await connection.close();
  }
});

it('a line opened on the birth line before the host listens: the hello and what follows wait in it, and are answered', async () => {
  const w = world();
  await configure(w);
  startHostSoon(w.agentDir, w.build);
  const { socketPath, key } = prepareHostPlace(w.agentDir, w.build);
  const started = hostComingUp(socketPath)!.pid!;
  w.remember(started);
  const client = await HostClient.open(socketPath, { build: w.build, key, label: defaultLabel() });
  try {
    // Open at once: the host does not listen yet.
    expect(existsSync(socketPath)).toBe(false);
    expect(client.hostPid).toBe(started);
    const status = await client.status();
    expect(status.pid).toBe(started);
    // Its one line is the birth line (its first word a status: a probe); none was opened on the socket.
    expect(status.clients).toEqual([expect.objectContaining({ pid: process.pid, probe: true })]);
  } finally {
    client.close();
  }
});

it('a host that finds another already listening exits; what the first connect put on its birth line is put to the one listening', async () => {
  const w = world();
  const notes = await configure(w);
  const other = await attachToHost({ agentDir: w.agentDir, build: w.build, label: 'another session' });
  const listening = other.hostPid;
  w.remember(listening);
  other.close();
  // As the pre-start does when its probe finds nobody: a host started with a birth line.
  const loser = spawnHost(w.agentDir, w.build, prepareHostPlace(w.agentDir, w.build).key).pid!;
  const connection = await connectThroughHost(w, notes);
  try {
    expect(textOf(await connection.callTool('echo', { text: 'to the one listening' }))).toBe(
      'to the one listening',
    );
    const status = await w.status();
    expect(status?.pid).toBe(listening);
    expect(sessionsOf(status)).toMatchObject([{ pid: process.pid, attachments: 1 }]);
    await eventually(() => expect(readProcState(loser)).toBeUndefined());
  } finally {
    await connection.close();
  }
});

it('a host already up is greeted ahead once the first request is on its way: the first connect takes that line', async () => {
  const w = world();
  const notes = await configure(w);
  const other = await attachToHost({ agentDir: w.agentDir, build: w.build, label: 'another session' });
  w.remember(other.hostPid);
  other.close();
  const { pi } = await preparedSession(w);
  await pi.emit('before_provider_request', { payload: {} });
  const ahead = await lineReadyAhead(w);
  const connection = await connectThroughHost(w, notes);
  try {
    expect(textOf(await connection.callTool('echo', { text: 'greeted' }))).toBe('greeted');
    expect(sessionsOf(await w.status())).toMatchObject([{ id: ahead.id, attachments: 1 }]);
  } finally {
    await connection.close();
  }
});

it('a first connect that takes the line while it is still being greeted keeps its process alive until the call is answered', async () => {
  const w = world();
  const notes = await configure(w);
  const tsx = pathToFileURL(join(dirname(require.resolve('tsx/package.json')), 'dist/loader.mjs')).href;
  const script = join(import.meta.dirname, 'scripts', 'first-connect.ts');
  const run = spawnSync(
    process.execPath,
    ['--import', tsx, script, w.agentDir, w.project, JSON.stringify(notes)],
    {
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  const status = await w.status();
  expect({ code: run.status, out: run.stdout, err: run.stderr }).toMatchObject({
    code: 0,
    out: 'first connect\n',
  });
  expect(status?.instances).toHaveLength(1);
});

it('a line greeted ahead whose host stopped is not used: the first connect starts a new host and is answered', async () => {
  const w = world();
  const notes = await configure(w);
  const { pi } = await preparedSession(w);
  await pi.emit('before_provider_request', { payload: {} });
  const first = await hostUpWithNothingAttached(w);
  await eventually(async () => expect(sessionsOf(await w.status())).toMatchObject([{ pid: process.pid }]));
  process.kill(first, 'SIGTERM');
  await eventually(() => expect(readProcState(first)).toBeUndefined());

  const connection = await connectThroughHost(w, notes);
  try {
    expect(textOf(await connection.callTool('echo', { text: 'after the stop' }))).toBe('after the stop');
    const status = await w.status();
    expect(status?.pid).not.toBe(first);
    expect(sessionsOf(status)).toMatchObject([{ pid: process.pid, attachments: 1 }]);
  } finally {
    await connection.close();
  }
});
