// The /mcp panel's behaviour on the real session runtime (server actors with a scripted connector and
// a SimulatedClock): what each server shows as it connects, fails and recovers, what the keys do to
// the session, when the host is asked to redraw, and that every line fits the width.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SimulatedClock } from 'xstate';
import { createRuntime, type Runtime } from '../../../src/actors/session-actor.ts';
import { runMcpAuthCommand, runMcpCommand } from '../../../src/commands/mcp-command.ts';
import {
  createPanelController,
  type PanelController,
  type PanelKey,
  type PanelOutcome,
} from '../../../src/commands/mcp-panel/controller.ts';
import { type Style, type TextKit, trailText } from '../../../src/commands/mcp-panel/render.ts';
import type { Diagnostic, ServerDefinition } from '../../../src/config/types.ts';
import { nullLogger } from '../../../src/logger.ts';
import { BACKOFF_CAP_MS } from '../../../src/machines/server-timing.ts';
import type { SharedHostView } from '../../../src/ports/connection.ts';
import type { OthersInFlight } from '../../../src/ports/host.ts';
import type { HostCopyState } from '../../../src/ports/server-state.ts';
import { SecretValues } from '../../../src/redact/index.ts';
import { silentHost } from '../../../src/session/host-port.ts';
import { FakeConnection, scriptedConnector, tool } from '../../machine/fakes.ts';
import { definition, loadedConfig } from '../../support/config.ts';

/** A connection as the shared host's adapter gives it (src/adapters/host/host-connection.ts). */
class HostedConnection extends FakeConnection {
  restarts = 0;
  /** Other sessions' calls running on the host's copy: the host holds an unforced restart back for them. */
  others: OthersInFlight | undefined;
  get sharedHost(): SharedHostView {
    return {
      pid: 4242,
      restart: async (force) => {
        if (this.others && !force) return this.others;
        this.restarts++;
        return undefined;
      },
    };
  }
}

const plain = (t: string) => t;
const style: Style = {
  accent: plain,
  muted: plain,
  dim: plain,
  success: plain,
  warning: plain,
  error: plain,
  bold: plain,
};
const width = (t: string) => [...t].length;
/** Terminal arithmetic for plain text with one-column characters (Pi's own kit does ANSI and CJK). */
const text: TextKit = {
  width,
  truncate: (t, w) => (width(t) <= w ? t : `${[...t].slice(0, Math.max(0, w - 1)).join('')}…`),
  wrap: (t, w) => {
    const lines: string[] = [];
    for (const paragraph of t.split('\n')) {
      let line = '';
      for (const word of paragraph.split(' ')) {
        const next = line ? `${line} ${word}` : word;
        if (width(next) <= w) line = next;
        else {
          if (line) lines.push(line);
          line = word;
          while (width(line) > w) {
            lines.push([...line].slice(0, w).join(''));
            line = [...line].slice(w).join('');
          }
        }
      }
      lines.push(line);
    }
    return lines;
  },
};

let runtime: Runtime;
let clock: SimulatedClock;
let scripted: ReturnType<typeof scriptedConnector>;
let status: string | undefined;
let active: string[];
let panel: PanelController;
let redraws: number;
let outcomes: PanelOutcome[];

async function start(servers: ServerDefinition[], skipped = false, diagnostics: Diagnostic[] = []) {
  vi.useFakeTimers({ toFake: ['Date'], now: 1_000_000 });
  scripted = scriptedConnector();
  clock = new SimulatedClock();
  const config = loadedConfig(servers);
  config.diagnostics.push(...diagnostics);
  if (skipped) {
    config.skipped.push({
      name: 'local',
      source: { file: '/p/.pi/mcp.json', kind: 'project', keyPath: 'mcpServers.local' },
      reason: 'the project is not trusted',
      fix: 'trust the project in Pi',
    });
  }
  const host = silentHost({
    setActiveMcpTools: (names) => {
      active = names;
    },
    setStatus: (line) => {
      status = line;
    },
  });
  runtime = createRuntime({
    secrets: new SecretValues(),
    host,
    connector: scripted.connector,
    loadConfig: () => config,
    logger: nullLogger,
    tempDir: '/nonexistent',
    clock,
  });
  await runtime.start({ cwd: '/p', projectTrusted: true });
  redraws = 0;
  outcomes = [];
  panel = createPanelController(runtime, {
    onChange: () => redraws++,
    onClose: (outcome) => outcomes.push(outcome),
  });
}

function screen(w = 80, h = 40): string {
  return panel.lines({ width: w, height: h, style, text }).join('\n');
}

/** Lets the coalesced rebuild after an actor change run. */
const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

function attemptFor(name: string) {
  const attempt = scripted.attempts.filter((a) => a.definition.name === name).at(-1);
  if (!attempt) throw new Error(`no connect attempt for ${name}`);
  return attempt;
}

async function press(...keys: PanelKey[]) {
  for (const key of keys) panel.key(key);
  await settle();
}

beforeEach(() => {
  status = undefined;
  active = [];
});

afterEach(async () => {
  panel?.dispose();
  await runtime?.stop();
  runtime?.dispose();
  vi.useRealTimers();
});

describe('the /mcp panel', () => {
  it('shows a server connecting, then connected with its tools, their cost and its trail', async () => {
    await start([definition({ name: 'alpha', lifecycle: 'eager' })]);
    await settle();
    expect(screen()).toMatch(/› alpha {2}◌ connecting for 0 s/);
    expect(screen()).toContain('eager · stdio · tools not listed yet');
    const before = redraws;

    vi.setSystemTime(Date.now() + 2_000);
    attemptFor('alpha').succeed(new FakeConnection([tool('echo'), tool('add')]));
    await settle();
    expect(redraws).toBeGreaterThan(before);
    const shown = screen();
    expect(shown).toMatch(/alpha {2}● connected for 0 s/);
    expect(shown).toMatch(/eager · stdio · 2 tools · ≈\d+ tokens if direct/);
    expect(shown).toContain('init → connecting → connected');
    expect(shown.split('\n')[1]).toBe('MCP 1/1');
  });

  it('shows a failure: last error, stderr tail, attempt and the retry countdown, live', async () => {
    await start([definition({ name: 'alpha', lifecycle: 'keep-alive' })]);
    attemptFor('alpha').fail('exited', 'exited with code 3', 'booting\nfatal: no config');
    await settle();
    let shown = screen();
    expect(shown).toMatch(/alpha {2}✗ failed for 0 s · retry in \d+ s \(attempt 1\)/);
    expect(shown).toContain('last error 0 s ago: exited with code 3');
    expect(shown).toContain('stderr:\n    │ booting\n    │ fatal: no config');
    expect(shown).toContain('init → connecting → backoff');
    expect(status).toBe('MCP 0/1 · alpha failing');

    // Nothing changed: no redraw. The clock moved: durations move on, one redraw.
    const before = redraws;
    panel.tick();
    expect(redraws).toBe(before);
    vi.setSystemTime(Date.now() + 3_000);
    panel.tick();
    expect(redraws).toBe(before + 1);
    shown = screen();
    expect(shown).toMatch(/failed for 3 s/);
    expect(shown).toContain('last error 3 s ago');
  });

  it('never shows a configured secret the server printed', async () => {
    const secret = 'panel-secret-7f3a9c21e5';
    await start([definition({ name: 'alpha', lifecycle: 'keep-alive', env: { API_TOKEN: secret } })]);
    attemptFor('alpha').fail('exited', `rejected token ${secret}`, `using token ${secret}`);
    await settle();
    const shown = screen();
    expect(shown).toContain('last error 0 s ago: rejected token ***');
    expect(shown).toContain('│ using token ***');
    expect(shown).not.toContain(secret);
  });

  it('a lazy server whose attempt failed rests as failed, retried by the next call', async () => {
    // Not in the cache: the session lists its tools at start.
    await start([definition({ name: 'alpha' })]);
    expect(screen()).toMatch(/alpha {2}◌ connecting for 0 s\n/);
    attemptFor('alpha').fail('exited', 'exited with code 3');
    await settle();
    expect(screen()).toMatch(/alpha {2}✗ failed for 0 s · retry in \d+ s \(attempt 1\)\n/);
    clock.increment(BACKOFF_CAP_MS);
    await settle();
    expect(screen()).toMatch(/alpha {2}✗ failed for 0 s · the next call retries\n/);
    expect(screen()).toContain('connecting → backoff → closed');
  });

  it('r reconnects the selected server now, ending its backoff wait', async () => {
    await start([definition({ name: 'alpha', lifecycle: 'keep-alive' })]);
    attemptFor('alpha').fail('exited', 'exited with code 3');
    await settle();
    const attempts = scripted.attempts.length;
    await press('reconnect');
    expect(scripted.attempts.length).toBe(attempts + 1);
    expect(screen()).toMatch(/alpha {2}◌ connecting/);
    expect(screen()).toContain('Reconnecting alpha…');
    attemptFor('alpha').succeed();
    await settle();
    expect(screen()).toMatch(/alpha {2}● connected/);
    expect(screen()).toContain('connecting → backoff → closed → connecting → connected');
    expect(screen()).toContain('alpha reconnected.');
    expect(screen()).not.toContain('Reconnecting alpha…');
  });

  it('a reconnect that fails replaces "Reconnecting …" with why', async () => {
    await start([definition({ name: 'alpha', lifecycle: 'keep-alive' })]);
    attemptFor('alpha').fail('exited', 'exited with code 3');
    await settle();
    await press('reconnect');
    expect(screen()).toContain('Reconnecting alpha…');
    attemptFor('alpha').fail('exited', 'exited with code 4');
    await settle();
    expect(screen()).toContain('Reconnecting alpha failed: exited with code 4');
    expect(screen()).not.toContain('Reconnecting alpha…');
  });

  it("f on a project's server asks the host to take its consent back; on one of yours it says why not", async () => {
    await start([
      definition({ name: 'alpha', lifecycle: 'eager' }),
      definition({ name: 'repo', lifecycle: 'eager', fromProject: true }),
    ]);
    attemptFor('alpha').succeed();
    attemptFor('repo').succeed();
    await settle();
    expect(screen()).not.toContain('f forget consent');
    await press('forget');
    expect(screen()).toContain(
      "alpha is not a server of this project's files: there is no consent to take back.",
    );
    expect(outcomes).toEqual([]);
    await press('down');
    expect(screen()).toContain('f forget consent');
    await press('forget');
    expect(outcomes).toEqual([{ kind: 'forget', server: 'repo' }]);
  });

  it('names what needs attention, and a asks the host to sign in', async () => {
    await start([
      definition({ name: 'alpha', lifecycle: 'eager' }),
      definition({ name: 'github', lifecycle: 'eager' }),
    ]);
    attemptFor('alpha').succeed();
    attemptFor('github').fail('auth', 'HTTP 401');
    await settle();
    expect(status).toBe('MCP 1/2 · github needs sign-in');
    expect(screen()).toMatch(/github {2}! needs sign-in for 0 s · press a to sign in/);
    await press('signIn');
    expect(screen()).toContain('alpha does not need a sign-in.');
    expect(outcomes).toEqual([]);
    await press('down', 'signIn');
    expect(outcomes).toEqual([{ kind: 'signIn', server: 'github' }]);
    // Closed: the panel no longer follows the actors.
    const before = redraws;
    runtime.actor.send({ type: 'RECONNECT', server: 'alpha' });
    await settle();
    expect(redraws).toBe(before);
  });

  it('e disables a server for the session and enables it again', async () => {
    await start([definition({ name: 'alpha', lifecycle: 'eager' }), definition({ name: 'beta' })], true);
    attemptFor('alpha').succeed();
    attemptFor('beta').succeed();
    await settle();
    expect(status).toBe('MCP 2/2');
    expect(screen()).toContain('local  – skipped: the project is not trusted');
    await press('down', 'toggleEnabled');
    expect(screen()).toContain('› beta  ○ disabled for this session · e enables it');
    expect(status).toBe('MCP 1/1');
    expect(runtime.servers().beta).toBeUndefined();
    await press('toggleEnabled');
    expect(screen()).toMatch(/› beta {2}○ idle|› beta {2}◌ connecting|› beta {2}○ not started/);
    expect(runtime.servers().beta).toBeDefined();
    expect(screen()).toContain('beta enabled for this session.');
  });

  it('D switches a server off in the user file that defines it, after asking; a project server is not written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pi-mcp-panel-switch-off-'));
    try {
      const file = join(dir, 'mcp.json');
      const text =
        '{\n  // mine\n  "mcpServers": {\n    "alpha": {\n      "command": "node"\n    }\n  }\n}\n';
      writeFileSync(file, text);
      await start([
        definition({ name: 'alpha', source: { file, kind: 'user', keyPath: 'mcpServers.alpha' } }),
        definition({
          name: 'local',
          source: { file: '/p/.pi/mcp.json', kind: 'project', keyPath: 'mcpServers.local' },
        }),
      ]);
      await press('disableInConfig');
      expect(screen(300)).toContain(
        `Switch alpha off for good: write "enabled": false into ${file}? y writes it · n or esc leaves the file as it is`,
      );
      await press('no');
      expect(readFileSync(file, 'utf8')).toBe(text);
      // Letters right after an answer wait for a move (a word typed at the question).
      await press('down', 'up', 'disableInConfig', 'yes');
      await vi.waitFor(() => expect(screen(300)).toContain(`alpha switched off in ${file}`));
      expect(readFileSync(file, 'utf8')).toBe(
        '{\n  // mine\n  "mcpServers": {\n    "alpha": {\n      "command": "node",\n      "enabled": false\n    }\n  }\n}\n',
      );
      expect(runtime.actor.getSnapshot().context.disabled).toContain('alpha');

      await press('down', 'disableInConfig');
      expect(screen(300)).toContain(
        'local is defined by the project (/p/.pi/mcp.json), which /mcp does not edit',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lists a server’s tools with descriptions; d makes one direct for the session and back', async () => {
    await start([definition({ name: 'alpha', lifecycle: 'eager' })]);
    attemptFor('alpha').succeed(
      new FakeConnection([
        { name: 'echo', description: 'Echoes the text back.', inputSchema: { type: 'object' } },
        { name: 'add', description: 'Adds two numbers.', inputSchema: { type: 'object' } },
      ]),
    );
    await settle();
    await press('tools');
    let shown = screen();
    expect(shown).toMatch(/alpha · 2 tools · ≈\d+ tokens if all direct/);
    // Sorted by name; the selected tool shows its whole description.
    expect(shown).toMatch(/› alpha__add {2}deferred ≈\d+ tokens\n {4}Adds two numbers\./);
    expect(shown).toMatch(/ {2}alpha__echo {2}deferred ≈\d+ tokens\n {4}Echoes the text back\./);

    await press('toggleDirect');
    expect(active).toContain('alpha__add');
    shown = screen();
    expect(shown).toContain('› alpha__add  direct (this session)');
    expect(shown).toContain('the model sees it on every turn');
    await press('toggleDirect');
    expect(active).not.toContain('alpha__add');
    expect(screen()).toContain('› alpha__add  deferred');
    await press('down');
    expect(screen()).toContain('› alpha__echo  deferred');

    await press('back');
    expect(screen()).toMatch(/› alpha {2}● connected/);
    await press('back');
    expect(outcomes).toEqual([{ kind: 'closed' }]);
  });

  it('a tool ToolSearch loaded reads "loaded by ToolSearch"; d makes it direct and keeps it active', async () => {
    await start([definition({ name: 'alpha', lifecycle: 'eager' })]);
    attemptFor('alpha').succeed(new FakeConnection([tool('echo'), tool('add')]));
    await settle();
    await runtime.toolSearch('select:alpha__add');
    await press('tools');
    expect(screen()).toContain('› alpha__add  loaded by ToolSearch');
    await press('toggleDirect');
    expect(active).toContain('alpha__add');
    expect(screen()).toContain('› alpha__add  direct (this session)');
    await press('toggleDirect');
    expect(active).not.toContain('alpha__add');
    expect(screen()).toContain('› alpha__add  deferred');
  });

  it('counts tools as /mcp does, resources read through tools apart', async () => {
    await start([definition({ name: 'alpha', lifecycle: 'eager', exposeResources: true })]);
    const connection = new FakeConnection([tool('echo'), tool('add')]);
    connection.catalog.resources = [{ uri: 'file:///a.txt', name: 'a' }];
    attemptFor('alpha').succeed(connection);
    await settle();
    expect(screen()).toMatch(/eager · stdio · 2 tools, 1 resource · ≈\d+ tokens if direct/);
    expect(await runMcpCommand('status', runtime)).toMatch(
      /alpha: connected — eager, stdio, 2 tools, 1 resource/,
    );
    await press('tools');
    expect(screen()).toMatch(/alpha · 2 tools, 1 resource · ≈\d+ tokens if all direct/);
  });

  it('/mcp-auth on a stdio server says it does not use sign-in', async () => {
    await start([definition({ name: 'alpha', lifecycle: 'eager' })]);
    attemptFor('alpha').succeed();
    await settle();
    const answer = runMcpAuthCommand('alpha', runtime);
    expect(answer).toMatch(/^alpha is a stdio server: it does not use sign-in/);
    expect(answer).not.toMatch(/401|token \(/);
  });

  it('counts calls in flight', async () => {
    await start([definition({ name: 'alpha', lifecycle: 'eager' })]);
    attemptFor('alpha').succeed();
    await settle();
    runtime.servers().alpha!.send({ type: 'CALL_STARTED' });
    runtime.servers().alpha!.send({ type: 'CALL_STARTED' });
    await settle();
    expect(screen()).toContain('connected for 0 s · 2 calls in flight');
    runtime.servers().alpha!.send({ type: 'CALL_FINISHED' });
    runtime.servers().alpha!.send({ type: 'CALL_FINISHED' });
    await settle();
    expect(screen()).not.toContain('in flight');
  });

  it('says which servers run in the shared host, in the panel and in /mcp, while connected there', async () => {
    await start([
      definition({ name: 'alpha', lifecycle: 'eager' }),
      definition({ name: 'beta', lifecycle: 'eager' }),
    ]);
    attemptFor('alpha').succeed(new HostedConnection());
    attemptFor('beta').succeed();
    await settle();
    const shown = screen();
    expect(shown).toMatch(/alpha {2}● connected for 0 s · shared \(host pid 4242\)/);
    expect(shown).toMatch(/beta {2}● connected for 0 s\n/);
    const status = await runMcpCommand('status', runtime);
    expect(status).toContain('alpha: connected, shared (host pid 4242) — eager, stdio');
    expect(status).toMatch(/^beta: connected — eager, stdio/m);
    expect(await runMcpCommand('alpha', runtime)).toMatch(/^alpha: connected, shared \(host pid 4242\) — /);

    runtime.servers().alpha!.send({ type: 'CLOSE' });
    await settle();
    expect(screen()).not.toContain('shared');
    expect(await runMcpCommand('status', runtime)).not.toContain('shared');
  });

  it("shows the host's copy's state beside a shared server, and a reconnect restarts the host's copy", async () => {
    await start([definition({ name: 'alpha', lifecycle: 'eager' })]);
    const hosted = new HostedConnection();
    attemptFor('alpha').succeed(hosted);
    await settle();
    // The host's push reaches the server actor as an event: its snapshot changes, the panel redraws (no tick).
    const copy: HostCopyState = {
      hostPid: 4242,
      state: 'backoff',
      tags: ['failed', 'failsFast'],
      nextRetryAt: Date.now() + 5_000,
      lastError: { kind: 'exited', detail: { cause: 'connect', message: 'exited with code 3' } },
    };
    runtime.servers().alpha!.send({ type: 'HOST_STATE', copy });
    await settle();
    const status = await runMcpCommand('status', runtime);
    expect(status).toMatch(
      /^alpha: connected, shared \(host pid 4242\), host: backoff, next try in 5 s — eager, stdio, 1 tool$/m,
    );
    expect(status).toContain("  the host's last error: exited with code 3");
    expect(screen()).toMatch(
      /alpha {2}● connected for 0 s\n {4}shared \(host pid 4242\), host: backoff, next try in 5 s\n/,
    );

    const reconnecting = runMcpCommand('reconnect alpha', runtime);
    expect(hosted.restarts).toBe(1);
    await settle();
    attemptFor('alpha').succeed(new HostedConnection());
    expect(await reconnecting).toMatch(/^alpha: connected, shared \(host pid 4242\) — /);
    await press('reconnect');
    expect(hosted.restarts).toBe(1); // the new connection's host copy was asked, not the old one
  });

  it("r over another session's running calls asks in the panel first: typed keys wait, n leaves the host's copy running", async () => {
    await start([definition({ name: 'alpha', lifecycle: 'eager' })]);
    const hosted = new HostedConnection();
    hosted.others = { calls: 2, callers: 1, attached: 1 };
    attemptFor('alpha').succeed(hosted);
    await settle();
    const attempts = scripted.attempts.length;
    await press('reconnect');
    const question =
      '2 calls from another Pi session are running on "alpha" in the shared host; restarting it cuts them. Restart anyway? r or y restarts it · n or esc leaves it running';
    expect(screen(300)).toContain(question);
    // Neither a move nor a typed letter answers it.
    await press('down', 'typed', 'toggleEnabled');
    expect(screen(300)).toContain(question);
    await press('no');
    expect(screen(300)).toContain(
      '"alpha" was not restarted: the other sessions\' calls on it keep running.',
    );
    expect(hosted.restarts).toBe(0);
    expect(scripted.attempts.length).toBe(attempts);
    expect(screen()).toMatch(/alpha {2}● connected/);
  });

  it('"yes" typed at the question restarts once; its e and s act on nothing', async () => {
    await start([definition({ name: 'alpha', lifecycle: 'eager' })]);
    const hosted = new HostedConnection();
    hosted.others = { calls: 1, callers: 1, attached: 1 };
    attemptFor('alpha').succeed(hosted);
    await settle();
    await press('reconnect');
    expect(screen(300)).toContain('Restart anyway?');
    await press('yes', 'toggleEnabled', 'typed');
    expect(hosted.restarts).toBe(1);
    expect(runtime.actor.getSnapshot().context.disabled).toEqual([]);
    expect(screen(300)).toContain('Typing goes to the /mcp panel, not to Pi: esc closes it first.');
    // A move ends the typing: letters act again.
    await press('down', 'toggleEnabled');
    expect(runtime.actor.getSnapshot().context.disabled).toEqual(['alpha']);
  });

  it('text typed into the panel does not press its letter keys; ctrl+d closes it from any screen', async () => {
    await start([definition({ name: 'alpha', lifecycle: 'eager' })]);
    attemptFor('alpha').succeed(new FakeConnection([tool('echo')]));
    await settle();
    await press('tools');
    // "hold" typed on the tools screen: h is text, o, l and d wait.
    await press('typed', 'typed', 'typed', 'toggleDirect');
    expect(active).not.toContain('alpha__echo');
    expect(screen()).toContain('Typing goes to the /mcp panel');
    await press('close');
    expect(outcomes).toEqual([{ kind: 'closed' }]);
  });

  it("r, then r again at the panel's question, restarts the host's copy over the other session's calls", async () => {
    await start([definition({ name: 'alpha', lifecycle: 'eager' })]);
    const hosted = new HostedConnection();
    hosted.others = { calls: 1, callers: 1, attached: 2 };
    attemptFor('alpha').succeed(hosted);
    await settle();
    await press('reconnect');
    expect(screen(300)).toContain(
      '1 call from another Pi session is running on "alpha" in the shared host (2 other sessions use it); restarting it cuts it. Restart anyway?',
    );
    await press('reconnect');
    expect(hosted.restarts).toBe(1);
    expect(screen()).toContain('Reconnecting alpha…');
    attemptFor('alpha').succeed(new HostedConnection());
    await settle();
    expect(screen()).toContain('alpha reconnected.');
  });

  it("/mcp reconnect over another session's running calls: asked (no keeps it, yes restarts), refused without a UI, --force", async () => {
    await start([definition({ name: 'alpha', lifecycle: 'eager' })]);
    const hosted = new HostedConnection();
    hosted.others = { calls: 3, callers: 2, attached: 2 };
    attemptFor('alpha').succeed(hosted);
    await settle();
    const attempts = scripted.attempts.length;
    const questions: string[] = [];
    const answering = (yes: boolean) => ({
      confirm: async (question: string) => {
        questions.push(question);
        return yes;
      },
    });

    expect(await runMcpCommand('reconnect alpha', runtime, answering(false))).toBe(
      '"alpha" was not restarted: the other sessions\' calls on it keep running.',
    );
    expect(questions).toEqual([
      '3 calls from 2 other Pi sessions are running on "alpha" in the shared host; restarting it cuts them. Restart anyway?',
    ]);
    expect(await runMcpCommand('reconnect', runtime)).toBe(
      '"alpha" was not restarted: 3 calls from 2 other Pi sessions are running on it in the shared host, and a restart would cut them. ' +
        'Wait for them to finish and run /mcp reconnect alpha again, or run /mcp reconnect alpha --force to cut them; ' +
        'a server whose calls no other session may cut can be set to "share": "session".',
    );
    expect(hosted.restarts).toBe(0);
    expect(scripted.attempts.length).toBe(attempts);

    const yes = runMcpCommand('reconnect alpha', runtime, answering(true));
    await settle();
    expect(hosted.restarts).toBe(1);
    const fresh = new HostedConnection();
    fresh.others = hosted.others;
    attemptFor('alpha').succeed(fresh);
    expect(await yes).toMatch(/^alpha: connected, shared \(host pid 4242\) — /);

    questions.length = 0;
    const forced = runMcpCommand('reconnect --force alpha', runtime, answering(false));
    await settle();
    attemptFor('alpha').succeed(new HostedConnection());
    expect(await forced).toMatch(/^alpha: connected, shared \(host pid 4242\) — /);
    expect(fresh.restarts).toBe(1);
    expect(questions).toEqual([]);
  });

  it('fits every line in narrow terminals and scrolls to keep the selection visible', async () => {
    const names = ['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7', 'a8'];
    await start(names.map((name) => definition({ name, lifecycle: 'eager' })));
    for (const name of names)
      attemptFor(name).fail('exited', `exited with code 3 after a long story ${'x'.repeat(80)}`);
    await settle();
    for (const w of [80, 60, 40, 30]) {
      for (const line of panel.lines({ width: w, height: 20, style, text })) {
        expect(width(line)).toBeLessThanOrEqual(w);
      }
    }
    // Narrow: the facts of a row flow onto more lines instead of being cut off.
    expect(screen(40, 200)).toMatch(/› a1 {2}✗ failed for 0 s\n {4}retry in \d+ s \(attempt 1\)/);
    let shown = screen(40, 20).split('\n');
    expect(shown.length).toBeLessThanOrEqual(20);
    expect(shown.some((l) => /↓ \d+ more/.test(l))).toBe(true);
    await press('up'); // wraps to the last server
    shown = screen(40, 20).split('\n');
    expect(shown.length).toBeLessThanOrEqual(20);
    expect(shown.some((l) => l.startsWith('› a8'))).toBe(true);
    expect(shown.some((l) => /↑ \d+ more/.test(l))).toBe(true);
  });
});

describe('the status line', () => {
  it('counts ready servers, names two that need attention and counts the rest', async () => {
    const names = ['a', 'b', 'c', 'd', 'e'];
    await start(names.map((name) => definition({ name, lifecycle: 'eager' })));
    await settle();
    expect(status).toBe('MCP 0/5 · 5 connecting');
    attemptFor('a').succeed();
    attemptFor('b').fail('auth', 'HTTP 401');
    attemptFor('c').fail('exited', 'exited with code 1');
    attemptFor('d').fail('exited', 'exited with code 1');
    await settle();
    expect(status).toBe('MCP 1/5 · b needs sign-in · c failing · +1 more');
    expect(screen().split('\n')[1]).toBe('MCP 1/5 · b needs sign-in · c failing · +1 more');
  });
});

describe('trailText', () => {
  it('keeps the newest states that fit, older ones collapse into …', () => {
    const trail = ['init', 'connecting', 'backoff', 'connecting', 'connected'] as const;
    expect(trailText([...trail], 80, text)).toBe('init → connecting → backoff → connecting → connected');
    expect(trailText([...trail], 30, text)).toBe('… → connecting → connected');
  });
});

describe('a failure, said once and kept (issue 36)', () => {
  it('a lazy server that failed: "failed for" and "last error … ago" read one time', async () => {
    await start([definition({ name: 'alpha' })]);
    void runtime.callTool('alpha__echo', {});
    await settle();
    attemptFor('alpha').fail('exited', 'exited with code 3');
    await settle();
    // The backoff ends 5 s later and the lazy server rests in closed; 1 s after that, both say 6 s.
    vi.setSystemTime(Date.now() + 5_000);
    clock.increment(BACKOFF_CAP_MS);
    await settle();
    vi.setSystemTime(Date.now() + 1_000);
    const shown = screen();
    expect(shown).toContain('last error 6 s ago');
    expect(shown).toMatch(/alpha {2}✗ failed for 6 s/);
  });

  it('the stderr line an error quotes is shown once', async () => {
    await start([definition({ name: 'alpha', lifecycle: 'keep-alive' })]);
    attemptFor('alpha').fail('exited', 'exited with code 3 (stderr: fatal: no config)', 'fatal: no config');
    await settle();
    const shown = screen();
    expect(shown.split('fatal: no config').length - 1).toBe(1);
    expect(shown).toContain('last error 0 s ago: exited with code 3');
    const status = await runMcpCommand('status', runtime);
    expect(status.split('fatal: no config').length - 1).toBe(1);
  });

  it('e twice on a failing server keeps its error and stderr until the next try replaces them', async () => {
    await start([definition({ name: 'alpha', lifecycle: 'keep-alive' })]);
    attemptFor('alpha').fail('exited', 'exited with code 3', 'fatal: no config');
    await settle();
    await press('toggleEnabled');
    expect(screen()).toContain('○ disabled for this session');
    await press('toggleEnabled');
    let shown = screen();
    expect(shown).toContain('exited with code 3');
    expect(shown).toContain('│ fatal: no config');
    // The keep-alive server is tried again at once: that try's outcome replaces the kept one.
    attemptFor('alpha').fail('exited', 'exited with code 4', 'fatal: other');
    await settle();
    shown = screen();
    expect(shown).toContain('exited with code 4');
    expect(shown).not.toContain('exited with code 3');
    expect(shown).not.toContain('fatal: no config');
  });

  it('an unreadable config is said in the panel, /mcp and the status line, never "no servers"', async () => {
    const file = '/home/u/.pi/agent/mcp.json';
    await start([], false, [
      {
        level: 'error',
        code: 'invalid-json',
        file,
        message: `${file} is not valid JSON (line 3, column 24: unexpected character); this file is ignored, other files still load.`,
        fix: 'Fix the syntax at line 3 (comments and trailing commas are allowed).',
      },
    ]);
    await settle();
    expect(status).toBe('MCP · mcp.json unreadable (line 3)');
    const shown = screen();
    expect(shown).toContain('could not be read');
    expect(shown).toContain('line 3');
    expect(shown).not.toMatch(/No MCP servers configured/);
    const text = await runMcpCommand('status', runtime);
    expect(text).toContain(`${file} is not valid JSON (line 3`);
    expect(text).not.toMatch(/No MCP servers configured/);
  });
});
