// Tool calls as the model makes them, through the session runtime to real fixture servers: lazy
// connect, progress, cancellation, timeouts, crashes, large output, and the answers the model gets.

import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from 'xstate';
import { createRuntime, type Runtime } from '../../src/actors/session-actor.ts';
import { connectMcp } from '../../src/adapters/mcp/index.ts';
import type { LoadedConfig, ServerDefinition } from '../../src/config/types.ts';
import { nullLogger } from '../../src/logger.ts';
import { SecretValues } from '../../src/redact/index.ts';
import { silentHost } from '../../src/session/host-port.ts';
import type { ToolResult } from '../../src/tools/executor.ts';
import { stdioDefinition } from '../fixtures/servers/definitions.ts';
import { fixtureServerProcesses } from '../fixtures/servers/spawn.ts';
import { loadedConfig } from '../support/config.ts';

let tempDir: string;
let runtime: Runtime;

const host = silentHost();

async function start(servers: ServerDefinition[], settings: Partial<LoadedConfig['settings']> = {}) {
  const config = loadedConfig(servers, settings);
  runtime = createRuntime({
    secrets: new SecretValues(),
    host,
    connector: connectMcp,
    loadConfig: () => config,
    logger: nullLogger,
    tempDir,
  });
  await runtime.start({ cwd: tempDir, projectTrusted: true });
  await waitFor(runtime.actor, (s) => servers.every((d) => s.context.catalogs[d.name]), { timeout: 15_000 });
}

const text = (r: ToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');

beforeEach(() => {
  tempDir = mkdtempSync(join(tmpdir(), 'pi-mcp-exec-'));
});

afterEach(async () => {
  await runtime.stop();
  runtime.dispose();
  expect(fixtureServerProcesses()).toEqual([]);
  rmSync(tempDir, { recursive: true, force: true });
});

describe('executor against real servers', () => {
  it('connects a lazy server on first call after it went idle, and tracks in-flight calls', async () => {
    await start([stdioDefinition([], { name: 'fx' })]);
    const ref = runtime.servers().fx!;
    ref.send({ type: 'CLOSE' });
    await waitFor(ref, (s) => s.matches('closed'));
    const result = await runtime.callTool('fx__echo', { text: 'hello' });
    expect(result.isError).toBeFalsy();
    expect(text(result)).toContain('hello');
    expect(ref.getSnapshot().matches('connected')).toBe(true);
    expect(ref.getSnapshot().context.inFlight).toBe(0);
  });

  it('streams progress to onUpdate: the first at once, then the latest a few times a second, and the final one', async () => {
    await start([stdioDefinition([], { name: 'fx' })]);
    const updates: string[] = [];
    const result = await runtime.callTool('fx__progress', { steps: 3, intervalMs: 5 }, undefined, (partial) =>
      updates.push(text(partial)),
    );
    expect(result.isError).toBeFalsy();
    const steps = [1, 2, 3].map((n) => `fx__progress: progress ${n}/3 — step ${n}`);
    expect(updates[0]).toBe(steps[0]);
    expect(updates.at(-1)).toBe(steps[2]);
    // Step 2 comes 5 ms after step 1, within the throttle's interval: the final one replaces it.
    expect(updates.every((u) => steps.includes(u))).toBe(true);
  });

  it('cancellation from the signal ends the call and says so; the server stays usable', async () => {
    await start([stdioDefinition([], { name: 'fx' })]);
    const controller = new AbortController();
    const pending = runtime.callTool('fx__hang', {}, controller.signal);
    await waitFor(runtime.servers().fx!, (s) => s.context.inFlight === 1);
    controller.abort();
    const result = await pending;
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/was cancelled/);
    expect(runtime.servers().fx!.getSnapshot().context.inFlight).toBe(0);
    expect(text(await runtime.callTool('fx__echo', { text: 'still here' }))).toContain('still here');
  });

  it('a call that outlives requestTimeoutMs fails with a timeout the model can act on', async () => {
    await start([stdioDefinition([], { name: 'fx', requestTimeoutMs: 300 })]);
    const result = await runtime.callTool('fx__hang', {});
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/fx__hang got no answer within 300 ms and was cancelled/);
    expect(text(result)).not.toMatch(/busy/);
  });

  it('a crash mid-call tells the model the server dropped and will be restarted; the next call works', async () => {
    await start([stdioDefinition([], { name: 'fx' })]);
    const crashed = await runtime.callTool('fx__crash', {});
    expect(crashed.isError).toBe(true);
    expect(text(crashed)).toMatch(/dropped the connection during fx__crash/);
    const again = await runtime.callTool('fx__echo', { text: 'back' });
    expect(text(again)).toContain('back');
  });

  it('wrong arguments come back with the tool’s parameter summary', async () => {
    await start([stdioDefinition([], { name: 'fx' })]);
    const result = await runtime.callTool('fx__add', { a: 'one' });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/rejected the arguments/);
    expect(text(result)).toMatch(/Parameters: a \(number, required\)/);
  });

  it('large output is cut with a marker and saved whole to a private file', async () => {
    await start([stdioDefinition([], { name: 'fx' })], { outputLimitBytes: 1024 });
    const big = 'x'.repeat(5000);
    const result = await runtime.callTool('fx__echo', { text: big });
    const out = text(result);
    expect(out.length).toBeLessThan(3000);
    const file = out.match(/saved in (\S+?)[;.]?\s/)?.[1];
    expect(file).toBeDefined();
    expect(readFileSync(file!, 'utf8')).toContain(big);
    expect(statSync(file!).mode & 0o777).toBe(0o600);
  });

  it('captureStats counts calls and errors per tool and writes them at session end', async () => {
    const path = join(tempDir, 'stats.json');
    await start([stdioDefinition([], { name: 'fx' })], { captureStats: { path, flushDelayMs: 10_000 } });
    await runtime.callTool('fx__echo', { text: 'a' });
    await runtime.callTool('fx__echo', { text: 'b' });
    await runtime.callTool('fx__add', { a: 'x' });
    await runtime.stop();
    const written = JSON.parse(readFileSync(path, 'utf8'));
    expect(written.tools['fx/echo']).toMatchObject({ calls: 2, errors: 0 });
    expect(written.tools['fx/add']).toMatchObject({ calls: 1, errors: 1 });
  });

  it('toonEncode turns JSON text into shorter TOON for the listed servers only', async () => {
    await start([stdioDefinition([], { name: 'fx' }), stdioDefinition([], { name: 'plain' })], {
      toonEncode: ['fx'],
    });
    const toon = text(await runtime.callTool('fx__structured', {}));
    expect(toon).toMatch(/^value: 42/);
    const plain = text(await runtime.callTool('plain__structured', {}));
    expect(plain).toContain('{"value":42}');
  });

  it('an unknown tool name, and a tool of a disabled server, answer with what to do', async () => {
    await start([stdioDefinition([], { name: 'fx' })]);
    expect(text(await runtime.callTool('fx__nope', {}))).toMatch(/Use ToolSearch/);
    runtime.actor.send({ type: 'DISABLE', server: 'fx' });
    expect(text(await runtime.callTool('fx__echo', { text: 'x' }))).toMatch(/not running in this session/);
  });
});
