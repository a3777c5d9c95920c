// What servers ask of us, against @modelcontextprotocol/server-everything over stdio, through the
// whole extension (bridgePi) with Pi's dialogs answered by a recording host: elicitation (accept with
// validation and defaults, decline, cancel, no UI), roots, and the MCP log.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
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
  root = mkdtempSync(join(tmpdir(), 'pi-mcp-requests-'));
  agentDir = join(root, 'agent');
  project = join(root, 'project');
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(project, { recursive: true });
  writeFileSync(
    join(agentDir, 'mcp.json'),
    JSON.stringify({
      mcpServers: { everything: { command: process.execPath, args: [EVERYTHING_ENTRY], roots: true } },
    }),
  );
});

afterEach(async () => {
  for (const bridge of bridges.splice(0)) {
    const runtime = await bridge.runtime();
    await runtime.stop();
    runtime.dispose();
  }
  rmSync(root, { recursive: true, force: true });
});

async function boot(options: { hasUI?: boolean; debug?: boolean } = {}) {
  if (options.debug) {
    writeFileSync(
      join(agentDir, 'mcp.json'),
      JSON.stringify({
        mcpServers: {
          everything: { command: process.execPath, args: [EVERYTHING_ENTRY], debug: true, roots: true },
        },
      }),
    );
  }
  const pi = new RecordingPi(project);
  if (options.hasUI === false) Object.assign(pi.ctx, { hasUI: false, mode: 'print' });
  const bridge = bridgePi(pi, {
    connector: connectMcp,
    env: { PI_CODING_AGENT_DIR: agentDir },
    homeDir: root,
  });
  bridges.push(bridge);
  await pi.emit('session_start', {});
  const runtime = await bridge.runtime();
  // server-everything adds its elicitation and roots tools after initialize, for the capabilities we declared.
  await waitFor(
    runtime.actor,
    (s) =>
      ['trigger-elicitation-request', 'get-roots-list'].every(
        (n) => s.context.catalogs.everything?.tools.some((t) => t.name === n) ?? false,
      ),
    { timeout: 30_000 },
  );
  return { pi, runtime };
}

const text = (result: { content: Array<{ type: string; text?: string }> }) =>
  result.content.map((c) => c.text ?? '').join('\n');
const rawResult = (result: { content: Array<{ type: string; text?: string }> }) =>
  JSON.parse(text(result).split('Raw result: ')[1]!);

/** A user filling server-everything's form: one answer per field label, the first email invalid. */
function formUser() {
  let emailTries = 0;
  let integerTries = 0;
  return (method: string, title: string, options?: string[]) => {
    if (title.startsWith('MCP server "everything" asks:')) return 'Answer';
    if (title.includes('String with email format'))
      return ++emailTries === 1 ? 'not-an-email' : 'ada@example.com';
    if (title.includes('Integer')) return ++integerTries === 1 ? '500' : '7';
    if (title.startsWith('String —') || title.includes('String — Your full')) return 'Ada Lovelace';
    if (title.includes('Boolean')) return 'Yes';
    if (title.includes('Untitled Single Select Enum')) return 'Joey';
    if (title.includes('Untitled Multiple Select Enum')) return 'Piano, Drums';
    if (title.startsWith('Titled Single Select Enum')) return 'Wonder Woman';
    if (method === 'select') return options?.find((o) => o.endsWith('(default)')) ?? options?.[0];
    return ''; // keep the default / leave empty
  };
}

describe('elicitation through Pi dialogs', () => {
  it('form: answers validated field by field (invalid ones asked again with the problem), defaults applied', async () => {
    const { pi } = await boot();
    pi.dialog = formUser();
    const result = await pi.callTool('everything__trigger-elicitation-request', {});
    expect(text(result)).toContain('User provided the requested information');
    const raw = rawResult(result);
    expect(raw.action).toBe('accept');
    expect(raw.content).toMatchObject({
      name: 'Ada Lovelace',
      check: true,
      firstLine: 'It was a dark and stormy night.',
      email: 'ada@example.com',
      integer: 7,
      number: 3.14,
      untitledSingleSelectEnum: 'Joey',
      untitledMultipleSelectEnum: ['Piano', 'Drums'],
      titledSingleSelectEnum: 'hero-3',
      titledMultipleSelectEnum: ['fish-1'],
      legacyTitledEnum: 'pet-1',
    });
    expect(raw.content).not.toHaveProperty('homepage');
    const titles = pi.dialogs.map((d) => d.title);
    expect(titles.some((t) => t.startsWith('expected a valid email. String with email format'))).toBe(true);
    expect(titles.some((t) => t.startsWith('must be at most 100. Integer'))).toBe(true);
  });

  it('decline and Escape reach the server as decline and cancel', async () => {
    const { pi } = await boot();
    pi.dialog = (_m, title) => (title.includes('asks:') ? 'Decline' : undefined);
    expect(text(await pi.callTool('everything__trigger-elicitation-request', {}))).toContain('User declined');
    pi.dialog = (_m, title) => (title.includes('asks:') ? 'Answer' : undefined);
    expect(text(await pi.callTool('everything__trigger-elicitation-request', {}))).toContain(
      'User cancelled',
    );
  });

  it('without UI (print mode) the request is refused with the reason, which reaches the model', async () => {
    const { pi } = await boot({ hasUI: false });
    const result = await pi.callTool('everything__trigger-elicitation-request', {});
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/without an interactive UI \(print mode\)/);
    expect(pi.dialogs).toEqual([]);
  });
});

describe('prompts as slash commands', () => {
  it('/mcp__everything__args-prompt sends the prompt to the model; a missing argument is asked for; /mcp prompts lists them', async () => {
    const { pi, runtime } = await boot();
    await waitFor(runtime.actor, (s) => (s.context.catalogs.everything?.prompts?.length ?? 0) > 0);
    expect(pi.commands.has('mcp__everything__simple-prompt')).toBe(true);
    expect(pi.commands.get('mcp__everything__args-prompt')!.description).toBe(
      'MCP everything: A prompt with two arguments, one required and one optional — city=… [state=…]',
    );
    await pi.command('mcp__everything__args-prompt', 'city="New York" state=NY');
    expect(pi.userMessages.at(-1)).toEqual([{ type: 'text', text: "What's weather in New York, NY?" }]);
    await pi.command('mcp__everything__args-prompt', 'Paris');
    expect(pi.userMessages.at(-1)).toEqual([{ type: 'text', text: "What's weather in Paris?" }]);

    pi.dialog = (method, title) => (method === 'input' && title.startsWith('city') ? 'Oslo' : undefined);
    await pi.command('mcp__everything__args-prompt', '');
    expect(pi.userMessages.at(-1)).toEqual([{ type: 'text', text: "What's weather in Oslo?" }]);
    pi.dialog = () => undefined;
    expect(await pi.command('mcp__everything__args-prompt', '')).toMatch(/needs city/);

    const listed = await pi.command('mcp', 'prompts');
    expect(listed).toContain('/mcp__everything__args-prompt city [state]');
    expect(await pi.command('mcp', 'everything')).toMatch(/Prompts:\n.*mcp__everything__simple-prompt/s);
  });
});

describe('instructions', () => {
  it("reach the model once per session, at the end of the ToolSearch result that first loads the server's tools", async () => {
    const { pi } = await boot();
    const first = text(await pi.callTool('ToolSearch', { query: 'select:everything__echo' }));
    expect(first).toMatch(/^Loaded 1 tool/);
    expect(first).toContain('Instructions from MCP server "everything":\n');
    const second = text(await pi.callTool('ToolSearch', { query: 'select:everything__get-sum' }));
    expect(second).not.toContain('Instructions from MCP server');
  });
});

describe('roots and logging', () => {
  it('roots/list answers the working directory', async () => {
    const { pi } = await boot();
    const result = await pi.callTool('everything__get-roots-list', {});
    expect(text(result)).toContain(pathToFileURL(project).href);
  });

  it('notifications/message reach our log with the server name and level, and the stderr tail /mcp shows (debug: true sets level debug)', async () => {
    const { pi, runtime } = await boot({ debug: true });
    await pi.callTool('everything__toggle-simulated-logging', {});
    const ref = runtime.servers().everything!;
    await waitFor(ref, (s) => /\[log \w+\]/.test(s.context.connection?.stderrTail() ?? ''), {
      timeout: 30_000,
    });
    const log = readFileSync(join(agentDir, 'pi-mcp-actors.log'), 'utf8');
    expect(log).toMatch(/\[everything\] (debug|info|notice|warning|error|critical|alert|emergency): /);
  }, 60_000);
});
