// Two real Pi sessions (RPC mode) at the same time on one shared host (issue 26's isolation bar, after
// CVE-2026-25536): a sampling request and an elicitation caused by A's call are asked only in A's UI;
// A's progress reaches only A even while B has a call of its own in flight; a list change reaches both;
// B's cancel ends only B's call. Both sessions attach to the same two server instances in the host.
// The model is one scripted step function that reads which session's prompt (PLAN:<name>) it answers,
// so the two sessions can talk to it at once.

import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { openHost } from '../../src/adapters/host/start-host.ts';

import type { HostStatus } from '../../src/host/protocol.ts';
import { ENSURE_PI_TIMEOUT_MS, ensurePi } from './harness/ensure-pi.ts';
import { type ChatRequestBody, messageText, type ScriptStep } from './harness/fake-llm.ts';
import {
  EXTENSION,
  killMarked,
  stdioEntry,
  TOOL_SEARCH,
  toolResultFor,
  uniqueMarker,
} from './harness/mcp.ts';
import { isRunning, killPids } from './harness/processes.ts';
import { type PiRecord, type PiRpc, startPiRpc, type UiAnswer } from './harness/run-pi.ts';
import { createWorld, type World } from './harness/world.ts';

const everythingBin = resolve(import.meta.dirname, '../../node_modules/.bin/mcp-server-everything');
const marker = uniqueMarker('isolation');

let world: World;
let gate: string;
let a: PiRpc;
let b: PiRpc;
const hostPids = new Set<number>();
/** Every dialog each session was asked (B's are cancelled: B's user is not there). */
const asked: Record<'A' | 'B', PiRecord[]> = { A: [], B: [] };

/** search → call → done, with call ids that name the session and the plan. */
function plan(id: string, tool: string, args: Record<string, unknown> = {}): ScriptStep[] {
  return [
    { toolCalls: [{ id: `${id}_search`, name: TOOL_SEARCH, arguments: { query: `select:${tool}` } }] },
    { toolCalls: [{ id: `${id}_call`, name: tool, arguments: args }] },
    { text: `${id} done` },
  ];
}

function plans(): Record<string, ScriptStep[]> {
  return {
    a_sample: plan('a_sample', 'everything__trigger-sampling-request', { prompt: 'Say hi', maxTokens: 42 }),
    a_elicit: plan('a_elicit', 'everything__trigger-elicitation-request'),
    a_change: plan('a_change', 'fx__change_lists'),
    a_gate: plan('a_gate', 'fx__gated_progress', { path: gate, intervalMs: 50 }),
    b_hang: plan('b_hang', 'fx__hang'),
    a_cancellations: plan('a_cancellations', 'fx__cancellations'),
  };
}

/** Answers by the session's latest `PLAN:<name>` prompt and how many answers it already had; a request
 * without one is a server's sampling request. */
function model(body: ChatRequestBody): ScriptStep {
  const messages = body.messages;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]!.role !== 'user') continue;
    const name = /PLAN:(\w+)/.exec(messageText(messages[i]!.content))?.[1];
    if (!name) continue;
    const answered = messages.slice(i + 1).filter((m) => m.role === 'assistant').length;
    return plans()[name]?.[answered] ?? { text: `${name}: nothing more` };
  }
  return { text: 'Hi from the model' };
}

/** A's user: allows sampling, fills the elicitation form (the name field is required). */
function userA(request: PiRecord): UiAnswer {
  asked.A.push(request);
  const title = String(request.title);
  if (title.includes('wants to use your model')) return { value: 'Allow for this session' };
  if (request.method === 'select') {
    if (title.includes('asks:')) return { value: 'Answer' };
    if (title.startsWith('Boolean')) return { value: 'Yes' };
    const options = request.options as string[];
    return { value: options.find((o) => o.endsWith('(default)')) ?? options[0]! };
  }
  if (title.startsWith('String —')) return { value: 'Grace Hopper' };
  return { value: '' };
}

function userB(request: PiRecord): UiAnswer {
  asked.B.push(request);
  return { cancelled: true };
}

async function hostStatus(): Promise<HostStatus> {
  const agentDir = world.dir.env.PI_CODING_AGENT_DIR!;
  const client = await openHost({ agentDir, label: 'isolation test' });
  try {
    const status = await client.status();
    hostPids.add(status.pid);
    return status;
  } finally {
    client.close();
  }
}

const records = (rpc: PiRpc, since: number) => rpc.records.slice(since);
const updatesOf = (list: readonly PiRecord[], id: string) =>
  list.filter((r) => r.type === 'tool_execution_update' && r.toolCallId === id);

beforeAll(async () => {
  await ensurePi();
  world = await createWorld({
    script: model,
    mcpJson: {
      settings: { sharedHost: true },
      mcpServers: {
        everything: { command: everythingBin, args: ['stdio'], lifecycle: 'eager' },
        fx: stdioEntry(marker, ['--list-changed', '--gate-tools'], { inheritEnv: false, lifecycle: 'eager' }),
      },
    },
  });
  gate = world.file('gate');
  // A host that outlives the test by accident idles out in seconds, not in 10 minutes.
  const env = { PI_MCP_ACTORS_HOST_IDLE_MS: '3000' };
  [a, b] = await Promise.all([
    startPiRpc({ dir: world.dir, extensions: [EXTENSION], env, onDialog: userA }),
    startPiRpc({ dir: world.dir, extensions: [EXTENSION], env, onDialog: userB }),
  ]);
  // Both sessions attached to the one instance of each server.
  await vi.waitFor(
    async () => {
      const status = await hostStatus();
      expect(status.instances.map((i) => [i.server, i.state, i.attached]).sort()).toEqual([
        ['everything', 'connected', 2],
        ['fx', 'connected', 2],
      ]);
      // Two sessions, each with its two attachments (the status client itself has none).
      expect(status.clients.map((c) => c.attachments).filter((n) => n > 0)).toEqual([2, 2]);
    },
    { timeout: 60_000, interval: 200 },
  );
}, ENSURE_PI_TIMEOUT_MS + 90_000);

afterAll(async () => {
  for (const rpc of [a, b]) if (rpc) await rpc.close().catch(() => rpc.kill());
  killPids([...hostPids], 'SIGTERM');
  await vi.waitFor(() => expect([...hostPids].filter(isRunning)).toEqual([]), { timeout: 10_000 });
  killMarked(marker);
  await world?.cleanup();
}, 60_000);

describe('two real Pi sessions on one shared host', () => {
  it("sampling and elicitation caused by A's calls are asked only in A's UI", async () => {
    const sinceB = b.records.length;
    await a.promptAndWait('PLAN:a_sample', { timeoutMs: 90_000 });
    await a.promptAndWait('PLAN:a_elicit', { timeoutMs: 90_000 });
    expect(world.llm.errors).toEqual([]);

    const sampled = world.llm.requests.find((r) =>
      r.body.messages.some((m) => m.role === 'tool' && m.tool_call_id === 'a_sample_call'),
    );
    expect(toolResultFor(sampled!.body, 'a_sample_call')).toContain('Hi from the model');
    const elicited = world.llm.requests.find((r) => toolResultFor(r.body, 'a_elicit_call') !== undefined);
    expect(toolResultFor(elicited!.body, 'a_elicit_call')).toContain('- Name: Grace Hopper');

    const titles = asked.A.map((r) => String(r.title));
    expect(titles.some((t) => t.startsWith('MCP server "everything" wants to use your model'))).toBe(true);
    expect(titles).toContain('MCP server "everything" asks: Please provide inputs for the following fields:');
    // B, attached to the same instance, was asked nothing and shown nothing of it.
    expect(asked.B).toEqual([]);
    const seenByB = JSON.stringify(records(b, sinceB));
    expect(seenByB).not.toContain('wants to use your model');
    expect(seenByB).not.toContain('asks:');
    expect(seenByB).not.toContain('Grace Hopper');
  }, 200_000);

  it("a list change caused by A reaches both sessions; each one's /mcp says the server runs in the host", async () => {
    await a.promptAndWait('PLAN:a_change', { timeoutMs: 90_000 });
    expect(world.llm.errors).toEqual([]);
    for (const rpc of [a, b]) {
      await vi.waitFor(
        async () => {
          const shown = await rpc.runCommand('/mcp tools fx');
          expect(shown.notifications.map((n) => n.message).join('\n')).toContain('fx__added_1');
        },
        { timeout: 30_000, interval: 250 },
      );
    }
    // Each session's /mcp says where the server runs: the one host both are attached to.
    const { pid } = await hostStatus();
    for (const rpc of [a, b]) {
      const shown = (await rpc.runCommand('/mcp')).notifications.map((n) => n.message).join('\n');
      expect(shown).toMatch(new RegExp(`^fx: connected, shared \\(host pid ${pid}\\) — `, 'm'));
    }
  }, 150_000);

  it("A's progress reaches only A while B has a call in flight; B's cancel ends only B's call", async () => {
    writeFileSync(gate, 'closed');
    const sinceA = a.records.length;
    const sinceB = b.records.length;
    expect((await a.send({ type: 'prompt', message: 'PLAN:a_gate' })).success).toBe(true);
    await a.waitForRecord((r) => r.type === 'tool_execution_update' && r.toolCallId === 'a_gate_call', {
      since: sinceA,
      timeoutMs: 60_000,
    });
    expect((await b.send({ type: 'prompt', message: 'PLAN:b_hang' })).success).toBe(true);
    await b.waitForRecord((r) => r.type === 'tool_execution_update' && r.toolCallId === 'b_hang_call', {
      since: sinceB,
      timeoutMs: 60_000,
    });
    // Both calls are on the one fx instance now.
    expect((await hostStatus()).instances.find((i) => i.server === 'fx')?.inFlight).toBe(2);

    await b.send({ type: 'abort' });
    const settledB = await b.waitForRecord((r) => r.type === 'agent_settled', {
      since: sinceB,
      timeoutMs: 30_000,
    });
    expect(settledB.aborted).toBe(true);
    const endB = records(b, sinceB).find(
      (r) => r.type === 'tool_execution_end' && r.toolCallId === 'b_hang_call',
    );
    expect(endB?.isError).toBe(true);
    // A's call still runs (its gate is closed) and keeps reporting progress.
    expect(
      records(a, sinceA).some((r) => r.type === 'tool_execution_end' && r.toolCallId === 'a_gate_call'),
    ).toBe(false);
    const before = updatesOf(records(a, sinceA), 'a_gate_call').length;
    await vi.waitFor(
      () => expect(updatesOf(records(a, sinceA), 'a_gate_call').length).toBeGreaterThan(before),
      {
        timeout: 10_000,
      },
    );

    rmSync(gate);
    await a.waitForRecord((r) => r.type === 'agent_settled', { since: sinceA, timeoutMs: 60_000 });
    expect(existsSync(gate)).toBe(false);
    const answered = world.llm.requests.find((r) => toolResultFor(r.body, 'a_gate_call') !== undefined);
    expect(toolResultFor(answered!.body, 'a_gate_call')).toMatch(/^gate opened after \d+ steps$/);
    expect(JSON.stringify(updatesOf(records(a, sinceA), 'a_gate_call'))).toContain('gate closed');
    // B heard none of A's progress: only its own call's updates, none of them A's.
    const fromB = records(b, sinceB);
    expect(
      fromB.filter((r) => r.type === 'tool_execution_update').every((r) => r.toolCallId === 'b_hang_call'),
    ).toBe(true);
    expect(JSON.stringify(fromB)).not.toContain('gate closed');

    // The server saw exactly one cancellation: B's hang, not A's call.
    await a.promptAndWait('PLAN:a_cancellations', { timeoutMs: 60_000 });
    const listed = world.llm.requests.find(
      (r) => toolResultFor(r.body, 'a_cancellations_call') !== undefined,
    );
    const cancelled = JSON.parse(toolResultFor(listed!.body, 'a_cancellations_call')!) as { tool: string }[];
    expect(cancelled.map((c) => c.tool)).toEqual(['hang']);
    expect(world.llm.errors).toEqual([]);
  }, 200_000);
});
