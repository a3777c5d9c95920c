// Consent of our own for servers of project files, in the real Pi 1.5.2 with neither --approve nor
// --no-approve (issue 23). A project whose only MCP file is `.mcp.json` (or a `.vscode/mcp.json` the
// user's `imports` pull in) makes Pi trust the folder without asking; that is not consent. Print and
// JSON modes start nothing and say how to allow; the TUI asks, deny leaves no mark, allow starts the
// server and is remembered; after a deny the /mcp panel asks again. Each start of the server appends to
// a mark file, so "never ran" is checked.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { stdioFixture } from '../fixtures/servers/spawn.ts';
import { ENSURE_PI_TIMEOUT_MS, ensurePi } from './harness/ensure-pi.ts';
import { EXTENSION, killMarked, uniqueMarker } from './harness/mcp.ts';
import { runPiJson, runPiPrint } from './harness/run-pi.ts';
import { startPiInTmux, type TmuxPi } from './harness/tmux.ts';
import { createWorld, type World } from './harness/world.ts';

let world: World | undefined;
let pi: TmuxPi | undefined;
let logs: string;
const marker = uniqueMarker('consent');

beforeAll(async () => {
  logs = mkdtempSync(join(tmpdir(), 'pi-e2e-consent-'));
  await ensurePi();
}, ENSURE_PI_TIMEOUT_MS);
afterAll(() => rmSync(logs, { recursive: true, force: true }));
afterEach(async () => {
  await pi?.stop();
  pi = undefined;
  await world?.cleanup();
  world = undefined;
  killMarked(marker);
});

/** A lazy stdio fixture (listed at session start: no cache) that appends to `mark` each time it starts. */
function marking(mark: string) {
  const { command, args } = stdioFixture(['--name', marker]);
  const quoted = [command, ...args].map((a) => `'${a}'`).join(' ');
  return { command: 'sh', args: ['-c', `echo started >> '${mark}'; exec ${quoted}`], env: { PROBE: 'x' } };
}

const marks = (mark: string) => (existsSync(mark) ? readFileSync(mark, 'utf8').trim().split('\n') : []);

type Layout = 'mcp.json' | 'vscode import';
const search = { toolCalls: [{ id: 'call_search', name: 'ToolSearch', arguments: { query: 'echo' } }] };

async function projectWorld(layout: Layout) {
  const mark = join(logs, `mark-${Math.random().toString(16).slice(2)}`);
  world = await createWorld({
    // Each one-shot run searches first: the search loads the runtime, which lists a server whose tools
    // are not known yet (what made a cloned repository's server run under Pi's default trust).
    script: [search, { text: 'All done.' }, search, { text: 'All done.' }],
    ...(layout === 'vscode import' ? { mcpJson: { imports: ['vscode'] } } : {}),
    files:
      layout === 'mcp.json'
        ? { 'project/.mcp.json': { mcpServers: { marker: marking(mark) } } }
        : { 'project/.vscode/mcp.json': { servers: { marker: marking(mark) } } },
  });
  return mark;
}

describe.each<Layout>(['mcp.json', 'vscode import'])(
  'a project server from %s under Pi’s default trust',
  (layout) => {
    it('starts nothing in print and JSON mode, and one line says how to allow it', async () => {
      const mark = await projectWorld(layout);
      const print = await runPiPrint({ dir: world!.dir, extensions: [EXTENSION], prompt: 'hi' });
      expect(print.code).toBe(0);
      expect(marks(mark)).toEqual([]);
      // Pi's print mode sends what extensions write to stdout to stderr (its stdout is the answer only).
      expect(print.stderr).toMatch(
        /Not started, not allowed for this project yet: marker .*pi-mcp-actors allow marker --cwd /,
      );
      const json = await runPiJson({ dir: world!.dir, extensions: [EXTENSION], prompt: 'hi' });
      expect(json.code).toBe(0);
      expect(json.stderr).toMatch(
        /^MCP: Not started, not allowed for this project yet: marker .*pi-mcp-actors allow marker/m,
      );
      expect(marks(mark)).toEqual([]);
    });

    it("starts in print mode in a folder of the user's trustedProjectFolders", async () => {
      const mark = await projectWorld(layout);
      const dir = world!.dir;
      writeFileSync(
        join(dir.agentDir, 'mcp.json'),
        JSON.stringify({
          ...(layout === 'vscode import' ? { imports: ['vscode'] } : {}),
          settings: { trustedProjectFolders: [dir.projectDir] },
        }),
      );
      const print = await runPiPrint({ dir, extensions: [EXTENSION], prompt: 'hi' });
      expect(print.code).toBe(0);
      expect(print.stderr).not.toMatch(/not allowed for this project/);
      expect(marks(mark)).toEqual(['started']);
    });

    it('asks in the TUI: deny leaves no mark; allow starts it and is remembered', {
      timeout: 180_000,
    }, async () => {
      const mark = await projectWorld(layout);
      const start = async () => {
        pi = await startPiInTmux({ dir: world!.dir, extensions: [EXTENSION], columns: 120, rows: 40 });
        return pi;
      };
      const stop = async () => {
        await pi?.stop();
        pi = undefined;
      };

      let tui = await start();
      let screen = await tui.waitForScreen(/Start the MCP server "marker" from .*\?/, { timeoutMs: 60_000 });
      expect(screen).toMatch(/runs: sh -c 'echo started >> /);
      expect(screen).toContain('environment: PROBE and your whole environment');
      expect(screen).toContain('Allow all MCP servers of this project');
      // Deny is under the cursor: Enter denies.
      await tui.waitForScreen(/→ Deny \(ask again next time\)/);
      tui.press('Enter');
      // The warning wraps where the temp folder's path length puts it.
      await tui.waitForScreen(/Not\s+started,\s+not\s+allowed\s+for\s+this\s+project\s+yet:\s+marker/);
      expect(marks(mark)).toEqual([]);
      await stop();
      expect(marks(mark)).toEqual([]);

      tui = await start();
      await tui.waitForScreen(/Start the MCP server "marker"/, { timeoutMs: 60_000 });
      tui.press('Down');
      await tui.waitForScreen(/→ Allow\n/);
      tui.press('Enter');
      await vi.waitFor(() => expect(marks(mark)).toEqual(['started']), { timeout: 30_000, interval: 100 });
      await tui.waitForScreen(/MCP 1\/1/);
      await stop();

      // Remembered: the next start asks nothing and the server is there (its tools came from the listing).
      tui = await start();
      screen = await tui.waitForScreen(/MCP \d\/1/, { timeoutMs: 60_000 });
      expect(screen).not.toContain('Start the MCP server');
      tui.type('/mcp');
      tui.press('Enter');
      await tui.waitForScreen(/› marker {2}/);
    });

    it('after a deny, the /mcp panel shows it waiting; e asks again and allow starts it', {
      timeout: 180_000,
    }, async () => {
      const mark = await projectWorld(layout);
      pi = await startPiInTmux({ dir: world!.dir, extensions: [EXTENSION], columns: 120, rows: 40 });
      const tui = pi;
      await tui.waitForScreen(/Start the MCP server "marker"/, { timeoutMs: 60_000 });
      // Deny is under the cursor: Enter denies.
      await tui.waitForScreen(/→ Deny \(ask again next time\)/);
      tui.press('Enter');
      // The warning wraps where the temp folder's path length puts it.
      await tui.waitForScreen(/Not\s+started,\s+not\s+allowed\s+for\s+this\s+project\s+yet:\s+marker/);
      tui.type('/mcp');
      tui.press('Enter');
      await tui.waitForScreen(/› marker {2}\? waiting for your consent · e allows it/);
      tui.press('e');
      const screen = await tui.waitForScreen(/Start the MCP server "marker" from .*\?/);
      expect(screen).toMatch(/runs: sh -c 'echo started >> /);
      expect(marks(mark)).toEqual([]);
      tui.press('Down');
      await tui.waitForScreen(/→ Allow\n/);
      tui.press('Enter');
      await vi.waitFor(() => expect(marks(mark)).toEqual(['started']), { timeout: 30_000, interval: 100 });
      await tui.waitForScreen(/Allowed for .*: marker\. Starting them\./);
    });
  },
);
