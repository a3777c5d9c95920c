// settings.sampling / samplingAutoApprove / elicitation against @modelcontextprotocol/server-everything
// (it offers its sampling and elicitation tools only to a client that declares the capability),
// through the whole extension on a recording Pi.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from 'xstate';
import { connectMcp } from '../../src/adapters/mcp/index.ts';
import { bridgePi, type PiBridge } from '../../src/adapters/pi/bridge.ts';
import { EVERYTHING_ENTRY } from '../fixtures/servers/spawn.ts';
import { RecordingPi } from '../support/recording-pi.ts';

let root: string;
let agentDir: string;
let project: string;
const bridges: PiBridge[] = [];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'pi-mcp-request-settings-'));
  agentDir = join(root, 'agent');
  project = join(root, 'project');
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(project, { recursive: true });
});

afterEach(async () => {
  for (const bridge of bridges.splice(0)) {
    const runtime = await bridge.runtime();
    await runtime.stop();
    runtime.dispose();
  }
  rmSync(root, { recursive: true, force: true });
});

const SAMPLING_TOOL = 'trigger-sampling-request';
const ELICITATION_TOOL = 'trigger-elicitation-request';

async function boot(settings: Record<string, unknown>, options: { hasUI?: boolean } = {}) {
  writeFileSync(
    join(agentDir, 'mcp.json'),
    JSON.stringify({
      // roots on: get-roots-list then tells that the capability-dependent tools have arrived.
      settings: { roots: true, ...settings },
      mcpServers: { everything: { command: process.execPath, args: [EVERYTHING_ENTRY], lifecycle: 'eager' } },
    }),
  );
  const pi = new RecordingPi(project);
  if (options.hasUI === false) Object.assign(pi.ctx, { hasUI: false, mode: 'json' });
  const completions: unknown[] = [];
  // Pi's model registry as the sampler sees it (ctx.model / ctx.modelRegistry).
  Object.assign(pi.ctx, {
    model: { id: 'test-model', provider: 'test' },
    modelRegistry: {
      complete: async (_model: unknown, context: unknown) => {
        completions.push(context);
        return { content: [{ type: 'text', text: 'sampled answer' }], stopReason: 'stop' };
      },
    },
  });
  const bridge = bridgePi(pi, {
    connector: connectMcp,
    env: { PI_CODING_AGENT_DIR: agentDir },
    homeDir: root,
  });
  bridges.push(bridge);
  await pi.emit('session_start', {});
  const runtime = await bridge.runtime();
  // The roots tool arrives with the capability-dependent ones, after initialize.
  await waitFor(
    runtime.actor,
    (s) => s.context.catalogs.everything?.tools.some((t) => t.name === 'get-roots-list') ?? false,
    { timeout: 30_000 },
  );
  const tools = runtime.actor.getSnapshot().context.catalogs.everything!.tools.map((t) => t.name);
  return { pi, tools, completions };
}

const text = (result: { content: Array<{ type: string; text?: string }> }) =>
  result.content.map((c) => c.text ?? '').join('\n');

describe('sampling and elicitation settings', () => {
  it('by default both capabilities are declared (the server offers both tools)', async () => {
    const { tools } = await boot({});
    expect(tools).toContain(SAMPLING_TOOL);
    expect(tools).toContain(ELICITATION_TOOL);
  });

  it('sampling: false and elicitation: false declare neither, so the server never asks', async () => {
    const { tools, pi } = await boot({ sampling: false, elicitation: false });
    expect(tools).not.toContain(SAMPLING_TOOL);
    expect(tools).not.toContain(ELICITATION_TOOL);
    expect(tools).toContain('get-roots-list');
    expect(pi.tools.has(`everything__${SAMPLING_TOOL}`)).toBe(false);
  });

  it('samplingAutoApprove: true samples without a question, even without UI', async () => {
    const { pi, completions } = await boot({ samplingAutoApprove: true }, { hasUI: false });
    const result = await pi.callTool(`everything__${SAMPLING_TOOL}`, { prompt: 'Say hi', maxTokens: 20 });
    expect(result.isError).toBeFalsy();
    expect(text(result)).toContain('sampled answer');
    expect(completions).toHaveLength(1);
    expect(pi.dialogs).toEqual([]);
  });

  it('without samplingAutoApprove and without UI, sampling is refused and the reason names the setting', async () => {
    const { pi, completions } = await boot({}, { hasUI: false });
    const result = await pi.callTool(`everything__${SAMPLING_TOOL}`, { prompt: 'Say hi', maxTokens: 20 });
    expect(text(result)).toContain('settings.samplingAutoApprove: true allows it without asking');
    expect(completions).toEqual([]);
  });
});
