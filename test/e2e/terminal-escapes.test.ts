// Text from a hostile server in the real Pi (RPC mode, no --approve): every UI request our extension
// makes — notifications, status, dialogs, /mcp output — reaches Pi free of escape sequences, control
// characters and bidi overrides, and so does the log. The model reads the server's data as sent (the
// link keeps `?code=abc123`), and the link the user must open is shown intact.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOG_FILE } from '../../src/config/defaults.ts';
import { LINK } from '../fixtures/servers/hostile-text.ts';
import { fixtureArgs } from '../fixtures/servers/spawn.ts';
import { ENSURE_PI_TIMEOUT_MS, ensurePi } from './harness/ensure-pi.ts';
import { EXTENSION, TOOL_SEARCH, toolResultFor } from './harness/mcp.ts';
import { type PiRecord, type PiRpc, startPiRpc, type UiAnswer } from './harness/run-pi.ts';
import { createWorld, type World } from './harness/world.ts';

// biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for control characters
const TERMINAL_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const NAME = 'hostile\u001b]0;owned\u0007';

let world: World;
let rpc: PiRpc;
let shown: string[] = [];

function answer(request: PiRecord): UiAnswer {
  const title = String(request.title);
  if (title.includes('asks you to open a link')) return { value: 'Done (I opened the link)' };
  if (title.includes('asks:')) return { value: 'Answer' };
  const red = (request.options as string[] | undefined)?.find((o) => o.startsWith('Red'));
  return red ? { value: red } : { cancelled: true };
}

/** Every string inside a record (titles, messages, options, status text, widget lines). */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (typeof value !== 'object' || value === null) return [];
  return Object.values(value).flatMap(strings);
}

beforeAll(async () => {
  await ensurePi();
  world = await createWorld({
    mcpJson: {
      mcpServers: {
        // The same server under a name one can type: `/mcp plain` shows its stderr, which the log keeps.
        plain: {
          command: process.execPath,
          args: fixtureArgs('hostile-server'),
          lifecycle: 'eager',
          debug: true,
        },
        [NAME]: {
          command: process.execPath,
          args: fixtureArgs('hostile-server'),
          toolPrefix: 'none',
          lifecycle: 'eager',
        },
      },
    },
    script: [
      {
        toolCalls: [
          {
            id: 'call_search',
            name: TOOL_SEARCH,
            arguments: { query: 'select:hostile_echo,hostile_ask,hostile_fail' },
          },
        ],
      },
      { toolCalls: [{ id: 'call_echo', name: 'hostile_echo', arguments: { text: 'hello' } }] },
      { toolCalls: [{ id: 'call_ask', name: 'hostile_ask', arguments: {} }] },
      { toolCalls: [{ id: 'call_fail', name: 'hostile_fail', arguments: {} }] },
      { text: 'done' },
    ],
  });
  rpc = await startPiRpc({ dir: world.dir, extensions: [EXTENSION], onDialog: answer });
  await rpc.promptAndWait('Use the hostile tools', { timeoutMs: 60_000 });
  for (const command of ['/mcp', '/mcp status', '/mcp tools', '/mcp prompts', '/mcp plain']) {
    const output = await rpc.runCommand(command);
    shown.push(...output.notifications.map((n) => n.message));
  }
}, ENSURE_PI_TIMEOUT_MS);

afterAll(async () => {
  await rpc?.close();
  await world?.cleanup();
  shown = [];
});

describe('a hostile server in the real Pi', () => {
  it('reaches Pi’s UI and our log without a single escape, control character or bidi override', () => {
    expect(world.llm.errors).toEqual([]);
    const requests = rpc.records.filter((r) => r.type === 'extension_ui_request');
    expect(requests.some((r) => r.method === 'select')).toBe(true);
    expect(shown.join('\n')).toMatch(/hostile/);
    expect(shown.join('\n')).toMatch(/hostile server starting/);
    const dirty = requests.flatMap(strings).filter((s) => TERMINAL_CONTROL.test(s));
    expect(dirty).toEqual([]);
    const log = readFileSync(join(world.dir.agentDir, LOG_FILE), 'utf8');
    expect(log).toContain('hostile server starting');
    expect(log.split('\n').filter((line) => TERMINAL_CONTROL.test(line))).toEqual([]);
  });

  it('shows the link to open intact, and the model reads ?code=abc123 as the server sent it', () => {
    const link = rpc.records.find(
      (r) => r.type === 'extension_ui_request' && String(r.title).includes('asks you to open a link'),
    );
    expect(String(link?.title)).toContain(LINK);
    const echoed = toolResultFor(world.llm.requests[2]!.body, 'call_echo') ?? '';
    expect(echoed).toContain(`Open ${LINK} hello`);
    const asked = toolResultFor(world.llm.requests[3]!.body, 'call_ask') ?? '';
    expect(JSON.parse(asked)).toEqual({
      opened: 'accept',
      form: { action: 'accept', content: { color: 'red' } },
    });
  });
});
