// A hostile server (test/fixtures/servers/hostile-server.ts, over real stdio) and a server name with
// escapes try to drive the user's terminal through every surface we show: notifications, the status
// bar, dialogs (elicitation, sampling, prompt arguments), /mcp output, tool labels and command
// descriptions, the log file and the CLI. None of them may carry an escape sequence, a control
// character or a bidi override. The model still reads the server's data as sent (Pi strips escapes
// from tool results itself), and a link with `?code=` is shown intact.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from 'xstate';
import { connectMcp } from '../../src/adapters/mcp/index.ts';
import { bridgePi, type PiBridge } from '../../src/adapters/pi/bridge.ts';
import { CACHE_FILE_NAME, LOG_FILE } from '../../src/config/defaults.ts';
import { ESCAPES, LINK } from '../fixtures/servers/hostile-text.ts';
import { hostileFixture } from '../fixtures/servers/spawn.ts';
import { runCliBin } from '../support/output-channels.ts';
import { RecordingPi } from '../support/recording-pi.ts';

/** What a terminal would act on. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for control characters
const TERMINAL_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
/** A server name from a config file that tries the same. */
const NAME = 'hostile\u001b]0;owned\u0007';
/** A secret the config names: it never reaches the model, whatever the server echoes. */
const KNOWN_SECRET = 'known-secret-value-42';

let root: string;
let agentDir: string;
let project: string;
const bridges: PiBridge[] = [];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'pi-mcp-escapes-'));
  agentDir = join(root, 'agent');
  project = join(root, 'project');
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(project, { recursive: true });
  writeFileSync(
    join(agentDir, 'mcp.json'),
    JSON.stringify({
      mcpServers: {
        [NAME]: { ...hostileFixture(), env: { API_TOKEN: KNOWN_SECRET }, lifecycle: 'eager', debug: true },
      },
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

async function boot() {
  const pi = new RecordingPi(project);
  // A model and registry so that sampling reaches its approval dialog.
  Object.assign(pi.ctx, {
    model: { provider: 'test', id: 'model' },
    modelRegistry: {
      complete: async () => ({ content: [{ type: 'text', text: 'hi' }], stopReason: 'stop' }),
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
  await waitFor(runtime.actor, (s) => (s.context.catalogs[NAME]?.prompts?.length ?? 0) > 0, {
    timeout: 30_000,
  });
  return { pi, runtime };
}

const text = (result: { content: Array<{ type: string; text?: string }> }) =>
  result.content.map((c) => c.text ?? '').join('\n');

function toolNamed(pi: RecordingPi, tool: string): string {
  const name = [...pi.tools.keys()].find((n) => n.endsWith(tool));
  if (!name) throw new Error(`no tool ending in ${tool}: ${[...pi.tools.keys()].join(', ')}`);
  return name;
}

describe('text from a hostile server never drives the terminal', () => {
  it('Pi: notifications, status, dialogs, /mcp, labels, command descriptions and the log are clean; the model reads the data as sent', async () => {
    const { pi, runtime } = await boot();
    const echo = toolNamed(pi, 'hostile_echo');

    // The model reads the server's data unchanged: the link keeps its code.
    const echoed = text(await pi.callTool(echo, { text: 'hello' }));
    expect(echoed).toContain(`Open ${LINK} hello`);
    const leaked = text(await pi.callTool(echo, { text: `key ${KNOWN_SECRET}` }));
    expect(leaked).toContain(`Open ${LINK} key ***`);
    expect(leaked).not.toContain(KNOWN_SECRET);

    // A link the user must open is shown intact; the choice of a sanitized option is the server's value.
    pi.dialog = (method, title, options) => {
      if (title.includes('asks you to open a link')) return 'Done (I opened the link)';
      if (title.includes('asks:')) return 'Answer';
      if (method === 'select') return options?.find((o) => o.startsWith('Red'));
      return undefined;
    };
    const asked = text(await pi.callTool(toolNamed(pi, 'hostile_ask'), {}));
    expect(JSON.parse(asked)).toEqual({
      opened: 'accept',
      form: { action: 'accept', content: { color: 'red' } },
    });
    const linkDialog = pi.dialogs.find((d) => d.title.includes('asks you to open a link'));
    expect(linkDialog?.title).toContain(LINK);

    pi.dialog = (_method, title) => (title.includes('wants to use your model') ? 'Allow once' : undefined);
    const sampled = text(await pi.callTool(toolNamed(pi, 'hostile_sample'), {}));
    expect(sampled).toContain('hi');
    expect(
      pi.dialogs.some((d) => d.title.includes('wants to use your model') && d.title.includes('Say hi')),
    ).toBe(true);

    const failed = await pi.callTool(toolNamed(pi, 'hostile_fail'), {});
    expect(failed.isError).toBe(true);

    // A prompt's missing argument is asked with its (sanitized) description.
    const promptCommand = [...pi.commands.keys()].find((n) => n.endsWith('hostile_prompt'))!;
    pi.dialog = (method) => (method === 'input' ? 'cats' : undefined);
    await pi.command(promptCommand, '');
    expect(pi.userMessages.at(-1)).toEqual([{ type: 'text', text: expect.stringMatching(/^About cats/) }]);

    const shown = [
      await pi.command('mcp', ''),
      await pi.command('mcp', 'status'),
      await pi.command('mcp', NAME),
      await pi.command('mcp', 'tools'),
      await pi.command('mcp', 'prompts'),
      await pi.command('mcp', 'reconnect'),
    ];
    expect(shown.join('\n')).toContain('hostile');
    expect(shown.join('\n')).toMatch(/called hostile_/);

    const surfaces: Record<string, string> = {
      notifications: pi.notifications.map((n) => n.message).join('\n'),
      status: String(pi.status),
      dialogs: pi.dialogs.map((d) => [d.title, ...(d.options ?? [])].join('\n')).join('\n'),
      labels: [...pi.tools.values()]
        .map((t) => [t.label, t.namespace?.name, ...(t.namespace?.aliases ?? [])].join('\n'))
        .join('\n'),
      commands: [...pi.commands.entries()].map(([name, c]) => `${name} ${c.description ?? ''}`).join('\n'),
      log: readFileSync(join(agentDir, LOG_FILE), 'utf8'),
      // A server's prompt, sent as the user's message: Pi shows it as it is.
      userMessages: (pi.userMessages as Array<Array<{ text?: string }>>)
        .flatMap((blocks) => blocks.map((b) => b.text ?? ''))
        .join('\n'),
    };
    expect(surfaces.log).toContain('hostile server starting');
    for (const [surface, shownText] of Object.entries(surfaces)) {
      expect({ surface, dirty: TERMINAL_CONTROL.test(shownText) }).toEqual({ surface, dirty: false });
    }
    // The model-facing data kept the escapes: Pi strips them from tool results itself.
    expect(echoed).toContain(ESCAPES);
    // A description is the server's data too: the model reads the link as sent, live and from the cache.
    expect(pi.tools.get(echo)!.description).toContain(`Echoes text. Like ${LINK}`);
    await runtime.stop();
    expect(readFileSync(join(agentDir, CACHE_FILE_NAME), 'utf8')).toContain(`Echoes text. Like ${LINK}`);
  }, 60_000);

  it('CLI: status, tools (text and JSON) and call print no escape', async () => {
    const dirs = { cwd: project, home: root, agentDir };
    const runs = [
      await runCliBin(['status'], dirs),
      await runCliBin(['tools'], dirs),
      await runCliBin(['tools', '--json'], dirs),
      await runCliBin(['status', '--json'], dirs),
    ];
    const tools = runs[1]!.stdout;
    const echo = tools
      .split('\n')
      .find((l) => l.includes('hostile_echo'))!
      .split(/\s+/)[0]!;
    runs.push(await runCliBin(['call', echo, '{"text":"hello"}'], dirs));
    runs.push(await runCliBin(['call', echo.replace('hostile_echo', 'hostile_fail')], dirs));
    expect(runs[0]!.stdout).toMatch(/hostile.*connected/);
    // The user reads the server's data as sent, the link included.
    expect(runs[4]!.stdout).toContain(`Open ${LINK} hello`);
    expect(runs[5]!.stdout).toContain('it broke');
    for (const [index, run] of runs.entries()) {
      expect({ index, dirty: TERMINAL_CONTROL.test(run.stdout + run.stderr) }).toEqual({
        index,
        dirty: false,
      });
    }
  }, 60_000);
});
