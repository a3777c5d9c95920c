// Routing through the real shared host, one test per message kind (after CVE-2026-25536, where one
// server reused across clients leaked responses, progress, sampling and elicitation to the wrong one):
// two sessions, each with its own line to the host, on one warm server instance.

import { mkdirSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HostConnection } from '../../../src/adapters/host/host-connection.ts';
import { CallError } from '../../../src/ports/call-error.ts';
import type { ConnectionEvent, Progress } from '../../../src/ports/connection.ts';
import type { ElicitRequest, HostRequests, SamplingRequest } from '../../../src/ports/mcp.ts';
import { stdioDefinition } from '../../fixtures/servers/definitions.ts';
import {
  EVERYTHING_ENTRY,
  type HttpFixture,
  modernStdioFixture,
  startEverythingHttp,
} from '../../fixtures/servers/spawn.ts';
import { definition } from '../../support/config.ts';
import { eventually, type HostWorld, sessionsOf, textOf, useHostWorld } from './harness.ts';

const worldOf = useHostWorld();
let world: HostWorld;
beforeEach(() => {
  world = worldOf();
});

const fixture = () => stdioDefinition([], { inheritEnv: false });

describe('two sessions on one shared server', () => {
  it('share one warm instance: the second attach starts nothing', async () => {
    const a = await world.session('A').connect(fixture());
    const b = await world.session('B').connect(fixture());
    expect(a).toBeInstanceOf(HostConnection);
    expect((b as HostConnection).instance).toBe((a as HostConnection).instance);
    expect(b.pid).toBe(a.pid);
    const status = await world.status();
    expect(sessionsOf(status)).toHaveLength(2);
    expect(status?.instances).toEqual([
      expect.objectContaining({ server: 'fixture-stdio', state: 'connected', attached: 2, share: 'project' }),
    ]);
  });

  it('responses: the same request ids from both sessions get each its own answer', async () => {
    const a = await world.session('A').connect(fixture());
    const b = await world.session('B').connect(fixture());
    // Each client numbers its calls from the same start: the host keys them by client.
    const calls = Array.from({ length: 20 }, (_, i) =>
      Promise.all([
        a.callTool('echo', { text: `A${i}` }).then(textOf),
        b.callTool('echo', { text: `B${i}` }).then(textOf),
      ]),
    );
    const answers = await Promise.all(calls);
    answers.forEach(([fromA, fromB], i) => {
      expect(fromA).toContain(`A${i}`);
      expect(fromA).not.toContain('B');
      expect(fromB).toContain(`B${i}`);
      expect(fromB).not.toContain('A');
    });
  });

  it("progress: each session hears only its own call's progress", async () => {
    const a = await world.session('A').connect(fixture());
    const b = await world.session('B').connect(fixture());
    const heardA: Progress[] = [];
    const heardB: Progress[] = [];
    await Promise.all([
      a.callTool('progress', { steps: 3, intervalMs: 10 }, { onProgress: (p) => heardA.push(p) }),
      b.callTool('progress', { steps: 5, intervalMs: 10 }, { onProgress: (p) => heardB.push(p) }),
    ]);
    expect(heardA.map((p) => p.total)).toEqual([3, 3, 3]);
    expect(heardB.map((p) => p.total)).toEqual([5, 5, 5, 5, 5]);
  });

  it("cancellation: B's cancel ends only B's call", async () => {
    const a = await world.session('A').connect(fixture());
    const b = await world.session('B').connect(fixture());
    const stopA = new AbortController();
    const stopB = new AbortController();
    // `hang` reports progress 0 once the server has the call: both calls are running on the server.
    const started = (call: (onProgress: () => void) => Promise<unknown>) =>
      new Promise<{ running: Promise<unknown> }>((resolve) => {
        const running = call(() => resolve({ running }));
        running.catch(() => {});
      });
    const { running: callA } = await started((onProgress) =>
      a.callTool('hang', {}, { signal: stopA.signal, timeoutMs: 20_000, onProgress }),
    );
    const { running: callB } = await started((onProgress) =>
      b.callTool('hang', {}, { signal: stopB.signal, timeoutMs: 20_000, onProgress }),
    );
    stopB.abort();
    await expect(callB).rejects.toMatchObject({ kind: 'aborted' });
    // The server saw exactly one cancellation, and A's call is still running.
    await eventually(async () => {
      const seen = JSON.parse(textOf(await b.callTool('cancellations', {}))) as unknown[];
      expect(seen).toHaveLength(1);
    });
    await eventually(async () => expect((await world.status())?.instances[0]?.inFlight).toBe(1));
    stopA.abort();
    await expect(callA).rejects.toBeInstanceOf(CallError);
  });

  it('list_changed reaches every attached session', async () => {
    const a = await world.session('A').connect(fixture());
    const b = await world.session('B').connect(fixture());
    const eventsA: ConnectionEvent[] = [];
    const eventsB: ConnectionEvent[] = [];
    a.onEvent((e) => eventsA.push(e));
    b.onEvent((e) => eventsB.push(e));
    await a.callTool('change_lists', {});
    await eventually(() => {
      expect(eventsA.map((e) => e.type)).toEqual(
        expect.arrayContaining(['tools-changed', 'resources-changed']),
      );
      expect(eventsB.map((e) => e.type)).toEqual(
        expect.arrayContaining(['tools-changed', 'resources-changed']),
      );
    });
    // And the new tool is listed to both, by the one server.
    expect((await b.listTools()).map((t) => t.name)).toContain('added_1');
  });

  it('a call after the other session detached still works; the detached one is not told anything', async () => {
    const a = await world.session('A').connect(fixture());
    const b = await world.session('B').connect(fixture());
    const eventsB: ConnectionEvent[] = [];
    b.onEvent((e) => eventsB.push(e));
    await b.close();
    await a.callTool('change_lists', {});
    expect(textOf(await a.callTool('echo', { text: 'still here' }))).toContain('still here');
    expect(eventsB).toEqual([]);
    await expect(b.callTool('echo', { text: 'x' })).rejects.toMatchObject({ kind: 'closed' });
  });
});

describe('server requests go to the session whose call caused them', () => {
  const everything = () =>
    definition({
      name: 'everything',
      command: process.execPath,
      args: [EVERYTHING_ENTRY],
      inheritEnv: false,
      startupTimeoutMs: 20_000,
      requestTimeoutMs: 20_000,
    });

  function answering(name: string, seen: string[]): HostRequests {
    return {
      sample: async (request: SamplingRequest) => {
        seen.push(`sample:${JSON.stringify(request.messages[0]?.content)}`);
        return {
          model: `model-of-${name}`,
          role: 'assistant',
          content: { type: 'text', text: `from ${name}` },
        };
      },
      elicit: async (request: ElicitRequest) => {
        seen.push(`elicit:${request.mode}`);
        return { action: 'decline' };
      },
      roots: () => [{ uri: 'file:///shared-project', name: 'project' }],
    };
  }

  it('sampling caused by A reaches only A', async () => {
    const seenA: string[] = [];
    const seenB: string[] = [];
    const a = await world.session('A').connect(everything(), answering('A', seenA));
    const b = await world.session('B').connect(everything(), answering('B', seenB));
    expect((b as HostConnection).instance).toBe((a as HostConnection).instance);
    const result = await a.callTool('trigger-sampling-request', { prompt: 'hello', maxTokens: 10 });
    expect(JSON.stringify(result)).toContain('from A');
    expect(seenA.filter((s) => s.startsWith('sample'))).toHaveLength(1);
    expect(seenB).toEqual([]);
  });

  it('an elicitation caused by B reaches only B', async () => {
    const seenA: string[] = [];
    const seenB: string[] = [];
    const a = await world.session('A').connect(everything(), answering('A', seenA));
    const b = await world.session('B').connect(everything(), answering('B', seenB));
    await b.callTool('trigger-elicitation-request', {});
    expect(seenB).toEqual(['elicit:form']);
    expect(seenA).toEqual([]);
    void a;
  });

  it('roots/list is answered with the roots the instance was started for', async () => {
    const seen: string[] = [];
    const a = await world.session('A').connect(everything(), answering('A', seen));
    const result = await a.callTool('get-roots-list', {});
    expect(JSON.stringify(result)).toContain('file:///shared-project');
  });
});

describe("a server's request while both sessions have calls in flight", () => {
  const asked = (seen: string[]): HostRequests => ({
    elicit: async (request: ElicitRequest) => {
      seen.push(`elicit:${request.mode}`);
      return { action: 'decline' };
    },
  });

  /** Starts a long call of A's (until its signal) and waits until the host counts it in flight. */
  async function longCallOfA(run: (signal: AbortSignal) => Promise<unknown>) {
    const stop = new AbortController();
    const call = run(stop.signal);
    call.catch(() => {});
    await eventually(async () => expect((await world.status())?.instances[0]?.inFlight).toBe(1));
    return async () => {
      stop.abort();
      await expect(call).rejects.toBeInstanceOf(CallError);
    };
  }

  let http: HttpFixture | undefined;
  afterEach(async () => {
    await http?.stop();
    http = undefined;
  });

  it("2026-07-28: an input request rides on the call's own response, so only the caller is asked", async () => {
    const seenA: string[] = [];
    const seenB: string[] = [];
    const modern = definition({ name: 'modern', ...modernStdioFixture(), inheritEnv: false });
    const a = await world.session('A').connect(modern, asked(seenA));
    const b = await world.session('B').connect(modern, asked(seenB));
    expect((b as HostConnection).instance).toBe((a as HostConnection).instance);
    const stopA = await longCallOfA((signal) =>
      a.callTool('slow', { steps: 1000, ms: 20 }, { signal, timeoutMs: 60_000 }),
    );
    expect(textOf(await b.callTool('confirm', { action: 'deploy' }))).toBe('not confirmed (decline)');
    expect(seenB).toEqual(['elicit:form']);
    expect(seenA).toEqual([]);
    await stopA();
  });

  it("Streamable HTTP: a request on the call's own stream goes only to the caller", async () => {
    http = await startEverythingHttp();
    const seenA: string[] = [];
    const seenB: string[] = [];
    const everything = definition({
      name: 'everything-http',
      transport: 'http',
      url: http.url,
      requestTimeoutMs: 60_000,
    });
    const a = await world.session('A').connect(everything, asked(seenA));
    const b = await world.session('B').connect(everything, asked(seenB));
    expect((b as HostConnection).instance).toBe((a as HostConnection).instance);
    const stopA = await longCallOfA((signal) =>
      a.callTool('trigger-long-running-operation', { duration: 60, steps: 60 }, { signal }),
    );
    await b.callTool('trigger-elicitation-request', {});
    expect(seenB).toEqual(['elicit:form']);
    expect(seenA).toEqual([]);
    await stopA();
  });

  it('a legacy stdio server names no call: both callers are asked, the first answer wins', async () => {
    const seenA: string[] = [];
    const seenB: string[] = [];
    const everything = definition({
      name: 'everything',
      command: process.execPath,
      args: [EVERYTHING_ENTRY],
      inheritEnv: false,
      startupTimeoutMs: 20_000,
      requestTimeoutMs: 60_000,
    });
    const a = await world.session('A').connect(everything, asked(seenA));
    const b = await world.session('B').connect(everything, asked(seenB));
    const stopA = await longCallOfA((signal) =>
      a.callTool('trigger-long-running-operation', { duration: 60, steps: 60 }, { signal }),
    );
    await b.callTool('trigger-elicitation-request', {});
    expect(seenB).toEqual(['elicit:form']);
    expect(seenA).toEqual(['elicit:form']);
    await stopA();
  });
});

describe('instances are keyed by what they run', () => {
  it('project scope: another project folder gets its own instance; user scope: one for all', async () => {
    const other = `${world.root}/other`;
    mkdirSync(other);
    const a = await world.session('A').connect(fixture());
    const b = await world.session('B').connect(fixture(), undefined, other);
    expect((b as HostConnection).instance).not.toBe((a as HostConnection).instance);
    const userA = await world.session('A').connect(stdioDefinition([], { inheritEnv: false, share: 'user' }));
    const userB = await world
      .session('B')
      .connect(stdioDefinition([], { inheritEnv: false, share: 'user' }), undefined, other);
    expect((userB as HostConnection).instance).toBe((userA as HostConnection).instance);
    expect((await world.status())?.instances).toHaveLength(3);
  });

  it('different env values: different instances; a different name for the same server: shared', async () => {
    const a = await world
      .session('A')
      .connect(stdioDefinition([], { inheritEnv: false, env: { MODE: 'one' } }));
    const b = await world
      .session('B')
      .connect(stdioDefinition([], { inheritEnv: false, env: { MODE: 'two' } }));
    const c = await world
      .session('C')
      .connect(stdioDefinition([], { name: 'renamed', inheritEnv: false, env: { MODE: 'one' } }));
    expect((b as HostConnection).instance).not.toBe((a as HostConnection).instance);
    expect((c as HostConnection).instance).toBe((a as HostConnection).instance);
  });

  it('a server that cannot start fails the same way as in the session, with the next try, and the next attach tries again', async () => {
    const broken = () => stdioDefinition([], { inheritEnv: false, command: `${world.root}/no-such-command` });
    const session = world.session('A');
    await expect(session.connect(broken())).rejects.toMatchObject({
      name: 'ConnectError',
      kind: 'spawn',
      retryAt: expect.any(Number),
    });
    // Kept, unattached, in backoff for the next try (forgotten after its idle time).
    expect((await world.status())?.instances).toEqual([
      expect.objectContaining({ state: 'backoff', attached: 0 }),
    ]);
    await expect(session.connect(broken())).rejects.toMatchObject({ name: 'ConnectError', kind: 'spawn' });
    expect(session.inSession).toBe(0);
  });

  it('a connect aborted while the server starts leaves nothing attached; a hung start times out in the host', async () => {
    const hanging = (startupTimeoutMs: number) =>
      stdioDefinition(['--hang-initialize'], { inheritEnv: false, startupTimeoutMs });
    const stop = new AbortController();
    const session = world.session('A');
    const connectOptions = { signal: stop.signal };
    const attempt = session.connect(hanging(60_000), undefined, undefined, connectOptions);
    await eventually(
      async () =>
        expect((await world.status())?.instances).toEqual([expect.objectContaining({ state: 'connecting' })]),
      15_000,
    );
    stop.abort();
    await expect(attempt).rejects.toMatchObject({ name: 'ConnectError', kind: 'aborted' });
    await eventually(async () => expect((await world.status())?.instances[0]?.attached).toBe(0));

    await expect(world.session('B').connect(hanging(300))).rejects.toMatchObject({
      name: 'ConnectError',
      kind: 'timeout',
      message: expect.stringContaining('did not finish starting within 300 ms'),
    });
  });

  it('share "session" runs in the session, as without the host', async () => {
    const session = world.session('A');
    const connection = await session.connect(stdioDefinition([], { inheritEnv: false, share: 'session' }));
    expect(connection).not.toBeInstanceOf(HostConnection);
    expect(session.inSession).toBe(1);
    expect(await world.status()).toBeUndefined();
  });
});
