// Consent scope in the real Pi's terminal UI (issue 34), Pi in tmux:
// - under Pi's remembered trust of the parent folder, our own question is still asked for a clone's
//   `.mcp.json` server, and Esc leaves it not started (finding 4);
// - `f` on a project's server in the /mcp panel takes the consent back: the server stops in this session
//   and waits for consent again.
// Every server start appends to a mark file, so "never started" is checked directly.
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { stdioFixture } from '../fixtures/servers/spawn.ts';
import { runCliBin } from '../support/output-channels.ts';
import { ENSURE_PI_TIMEOUT_MS, ensurePi } from './harness/ensure-pi.ts';
import { EXTENSION, killMarked, markedProcesses, uniqueMarker } from './harness/mcp.ts';
import { startPiInTmux, type TmuxPi } from './harness/tmux.ts';
import { createWorld, type World } from './harness/world.ts';

let world: World | undefined;
let pi: TmuxPi | undefined;
let logs: string;
const marker = uniqueMarker('scope-tui');

beforeAll(async () => {
  logs = mkdtempSync(join(tmpdir(), 'pi-e2e-scope-tui-'));
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

/** An eager stdio fixture that appends `started` to `mark` each time it starts. */
function marking(mark: string) {
  const { command, args } = stdioFixture(['--name', marker]);
  const quoted = [command, ...args].map((a) => `'${a}'`).join(' ');
  return { command: 'sh', args: ['-c', `echo started >> '${mark}'; exec ${quoted}`], lifecycle: 'eager' };
}

const marks = (mark: string) => (existsSync(mark) ? readFileSync(mark, 'utf8').trim().split('\n') : []);

async function cloneWorld(mcpJson?: unknown) {
  const mark = join(logs, `mark-${Math.random().toString(16).slice(2)}`);
  world = await createWorld({
    script: [{ text: 'All done.' }],
    ...(mcpJson ? { mcpJson } : {}),
    files: { 'project/.mcp.json': { mcpServers: { clone: marking(mark) } } },
  });
  return mark;
}

describe('consent scope in the real Pi’s terminal UI', () => {
  it("under Pi's trust of the parent folder, our question is still asked", { timeout: 180_000 }, async () => {
    const mark = await cloneWorld();
    const dir = world!.dir;
    writeFileSync(
      join(dir.agentDir, 'trust.json'),
      `${JSON.stringify({ [realpathSync(dir.root)]: true })}\n`,
    );
    pi = await startPiInTmux({ dir, extensions: [EXTENSION], columns: 120, rows: 40 });
    await pi.waitForScreen(/Start the MCP server "clone" from .*\?/, { timeoutMs: 60_000 });
    pi.press('Escape');
    await pi.waitForScreen(/Not\s+started,\s+not\s+allowed\s+for\s+this\s+project\s+yet:\s+clone/);
    expect(marks(mark)).toEqual([]);
  });

  it('f in the /mcp panel takes the consent back and the server stops', { timeout: 180_000 }, async () => {
    // In the session (not warm in a shared host), so "stops" is the process ending.
    const mark = await cloneWorld({ settings: { sharedHost: false } });
    const { home, agentDir, projectDir } = world!.dir;
    expect((await runCliBin(['allow', 'clone'], { cwd: projectDir, home, agentDir })).code).toBe(0);
    pi = await startPiInTmux({ dir: world!.dir, extensions: [EXTENSION], columns: 120, rows: 40 });
    await pi.waitForScreen(/MCP 1\/1/, { timeoutMs: 60_000 });
    expect(marks(mark)).toEqual(['started']);
    pi.type('/mcp');
    pi.press('Enter');
    await pi.waitForScreen(/f forget consent/);
    pi.press('f');
    await pi.waitForScreen(/Forgot\s+your\s+consent\s+for\s+.*clone/);
    // The session started over without it: the server process is gone, and it waits for consent.
    await vi.waitFor(() => expect(markedProcesses(marker)).toEqual([]), { timeout: 30_000, interval: 200 });
    pi.type('/mcp');
    pi.press('Enter');
    await pi.waitForScreen(/clone {2}\? waiting for your consent/);
    expect(marks(mark)).toEqual(['started']);
  });
});
