// `trace` through the whole extension (bridgePi on a recording Pi, real fixture servers over stdio and
// Streamable HTTP): a metadata-only JSONL file in the project's .pi/mcp-traces/, bounded, without
// payloads, arguments, results, URLs or auth.

import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from 'xstate';
import { connectMcp } from '../../src/adapters/mcp/index.ts';
import { bridgePi, type PiBridge } from '../../src/adapters/pi/bridge.ts';
import { type HttpFixture, startHttpFixture, stdioFixture } from '../fixtures/servers/spawn.ts';
import { RecordingPi } from '../support/recording-pi.ts';

let root: string;
let agentDir: string;
let project: string;
const fixtures: HttpFixture[] = [];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'pi-mcp-trace-'));
  agentDir = join(root, 'agent');
  project = join(root, 'project');
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(project, { recursive: true });
});

afterEach(async () => {
  for (const fixture of fixtures.splice(0)) await fixture.stop();
  rmSync(root, { recursive: true, force: true });
});

/** Runs one session: connects the servers, makes the calls, shuts down (the trace is flushed). */
async function session(config: unknown, calls: Array<[string, Record<string, unknown>]>) {
  writeFileSync(join(agentDir, 'mcp.json'), JSON.stringify(config));
  const pi = new RecordingPi(project);
  const bridge: PiBridge = bridgePi(pi, {
    connector: connectMcp,
    env: { PI_CODING_AGENT_DIR: agentDir, TRACE_TOKEN: 'tok-trace-secret-123' },
    homeDir: root,
  });
  await pi.emit('session_start', {});
  const runtime = await bridge.runtime();
  const names = Object.keys((config as { mcpServers: object }).mcpServers);
  await waitFor(runtime.actor, (s) => names.every((n) => Boolean(s.context.catalogs[n])), {
    timeout: 30_000,
  });
  for (const [name, args] of calls) await pi.callTool(name, args);
  await runtime.stop();
  runtime.dispose();
}

function traceLines(): Array<Record<string, unknown>> {
  const dir = join(project, '.pi', 'mcp-traces');
  const files = readdirSync(dir);
  expect(files).toHaveLength(1);
  expect(files[0]).toMatch(/^mcp-.+\.jsonl$/);
  return readFileSync(join(dir, files[0]!), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
}

describe('trace', () => {
  it('records method, direction, id, size and timing of a traced server, and nothing of the payloads', async () => {
    const http = await startHttpFixture();
    fixtures.push(http);
    await session(
      {
        mcpServers: {
          local: { ...stdioFixture([]), lifecycle: 'eager', trace: true },
          remote: {
            url: http.url,
            lifecycle: 'eager',
            trace: true,
            // biome-ignore lint/suspicious/noTemplateCurlyInString: config text with a ${VAR} reference.
            headers: { 'X-Api-Key': '${TRACE_TOKEN}' },
          },
          quiet: { ...stdioFixture([]), lifecycle: 'eager' },
        },
      },
      [
        ['local__echo', { text: 'private words of the user' }],
        ['remote__echo', { text: 'more private words' }],
        ['quiet__echo', { text: 'not traced' }],
      ],
    );
    const lines = traceLines();
    const raw = JSON.stringify(lines);
    expect(raw).not.toContain('private words');
    expect(raw).not.toContain('tok-trace-secret-123');
    expect(raw).not.toContain(http.url);
    expect(raw).not.toContain('127.0.0.1');
    expect(new Set(lines.map((l) => l.server))).toEqual(new Set(['local', 'remote']));
    expect(lines.find((l) => l.server === 'remote')?.transport).toBe('streamable-http');
    for (const server of ['local', 'remote']) {
      const call = lines.find(
        (l) => l.server === server && l.method === 'tools/call' && l.kind === 'request',
      );
      expect(call).toMatchObject({ direction: 'outbound', status: 'sent', id: expect.any(Number) });
      const answer = lines.find((l) => l.server === server && l.kind === 'response' && l.id === call!.id);
      expect(answer).toMatchObject({
        direction: 'inbound',
        method: 'tools/call',
        status: 'received',
        durationMs: expect.any(Number),
        bytes: expect.any(Number),
      });
      expect(lines.some((l) => l.server === server && l.method === 'initialize')).toBe(true);
      expect(lines.some((l) => l.server === server && l.method === 'notifications/initialized')).toBe(true);
    }
    for (const line of lines) {
      expect(Object.keys(line).sort()).toEqual(
        expect.arrayContaining(['bytes', 'direction', 'kind', 'server', 'status', 'time', 'transport']),
      );
      expect(
        Object.keys(line).every((k) =>
          [
            'bytes',
            'direction',
            'kind',
            'server',
            'status',
            'time',
            'transport',
            'method',
            'id',
            'errorCode',
            'durationMs',
          ].includes(k),
        ),
      ).toBe(true);
    }
  });

  it('settings.trace: enabled for every server, a server opts out with trace: false; maxEvents bounds the file', async () => {
    await session(
      {
        settings: { trace: { enabled: true, maxEvents: 3, file: 'traces/mine.jsonl' } },
        mcpServers: {
          a: { ...stdioFixture([]), lifecycle: 'eager' },
          b: { ...stdioFixture([]), lifecycle: 'eager', trace: false },
        },
      },
      [['a__echo', { text: 'x' }]],
    );
    const lines = readFileSync(join(project, 'traces', 'mine.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(3);
    expect(lines.every((l) => l.server === 'a')).toBe(true);
    // protocolVersion auto (the default): the first connect asks which protocol era the server speaks.
    expect(lines[0]).toMatchObject({ method: 'server/discover', kind: 'request', direction: 'outbound' });
  });

  it('a fixed trace file over a new session (/new): the old session has flushed before the new one empties it', async () => {
    const config = (name: string) => ({
      settings: { trace: { enabled: true, file: 'trace.jsonl' } },
      mcpServers: { [name]: { ...stdioFixture([]), lifecycle: 'eager' } },
    });
    writeFileSync(join(agentDir, 'mcp.json'), JSON.stringify(config('old')));
    const pi = new RecordingPi(project);
    const bridge = bridgePi(pi, {
      connector: connectMcp,
      env: { PI_CODING_AGENT_DIR: agentDir },
      homeDir: root,
    });
    await pi.emit('session_start', {});
    const runtime = await bridge.runtime();
    await waitFor(runtime.actor, (s) => Boolean(s.context.catalogs.old), { timeout: 30_000 });
    // Calls whose lines are still on their way to the file when the new session starts.
    await Promise.all([1, 2, 3].map((n) => pi.callTool('old__echo', { text: `x${n}` })));
    writeFileSync(join(agentDir, 'mcp.json'), JSON.stringify(config('new')));
    await pi.emit('session_start', { reason: 'new' });
    await pi.command('mcp'); // the runtime starts with the new session
    await waitFor(runtime.actor, (s) => Boolean(s.context.catalogs.new), { timeout: 30_000 });
    await pi.callTool('new__echo', { text: 'y' });
    await runtime.stop();
    runtime.dispose();
    const servers = readFileSync(join(project, 'trace.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { server: string }).server);
    expect(servers.length).toBeGreaterThan(0);
    expect(new Set(servers)).toEqual(new Set(['new']));
  });

  it('maxBytes bounds the file', async () => {
    await session(
      {
        settings: { trace: { enabled: true, maxBytes: 400, file: 'small.jsonl' } },
        mcpServers: { a: { ...stdioFixture([]), lifecycle: 'eager' } },
      },
      [['a__echo', { text: 'x' }]],
    );
    const text = readFileSync(join(project, 'small.jsonl'), 'utf8');
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(400);
    expect(text.trim().split('\n').length).toBeGreaterThan(0);
  });
});

describe('trace inside a hostile project', () => {
  it('does not follow a project symlink out of the project (.pi → elsewhere)', async () => {
    const outside = join(root, 'outside');
    mkdirSync(outside);
    symlinkSync(outside, join(project, '.pi'));
    await session({ mcpServers: { local: { ...stdioFixture([]), lifecycle: 'eager', trace: true } } }, [
      ['local__echo', { text: 'x' }],
    ]);
    expect(readdirSync(outside)).toEqual([]);
  });

  it('does not write through a symlink at the configured trace file', async () => {
    const victim = join(root, 'victim.txt');
    writeFileSync(victim, 'keep me');
    symlinkSync(victim, join(project, 'trace.jsonl'));
    await session(
      {
        settings: { trace: { file: 'trace.jsonl' } },
        mcpServers: { local: { ...stdioFixture([]), lifecycle: 'eager', trace: true } },
      },
      [['local__echo', { text: 'x' }]],
    );
    expect(readFileSync(victim, 'utf8')).toBe('keep me');
  });
});
