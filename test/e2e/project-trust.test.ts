// Project trust in the real Pi: servers from a project's `.pi/mcp.json` and `.mcp.json` never start
// (not even an eager one, not even one that replaces a user server of the same name) until Pi
// reports the project as trusted; `--approve` trusts it and they start. Pi's default — a folder
// without `.pi/` resources is trusted without asking — is not consent: its `.mcp.json` servers wait
// for the user's own answer (test/e2e/project-consent.test.ts has the dialog). Every server start
// appends its name to a file, so "never started" is checked, not inferred from a status line.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { stdioFixture } from '../fixtures/servers/spawn.ts';
import { ENSURE_PI_TIMEOUT_MS, ensurePi } from './harness/ensure-pi.ts';
import { EXTENSION_PACKAGE, killMarked, uniqueMarker } from './harness/mcp.ts';
import { type PiRpc, startPiRpc } from './harness/run-pi.ts';
import { createWorld, type World } from './harness/world.ts';

let world: World | undefined;
let rpc: PiRpc | undefined;
const marker = uniqueMarker('trust');
let logs: string;

beforeAll(async () => {
  logs = mkdtempSync(join(tmpdir(), 'pi-e2e-trust-'));
  await ensurePi();
}, ENSURE_PI_TIMEOUT_MS);
afterAll(() => rmSync(logs, { recursive: true, force: true }));
afterEach(async () => {
  rpc?.kill();
  rpc = undefined;
  await world?.cleanup();
  world = undefined;
  killMarked(marker);
});

/** An eager stdio fixture that appends `label` to `log` each time it starts. */
function logged(log: string, label: string) {
  const { command, args } = stdioFixture(['--name', marker]);
  const quoted = [command, ...args].map((a) => `'${a}'`).join(' ');
  return { command: 'sh', args: ['-c', `echo ${label} >> '${log}'; exec ${quoted}`], lifecycle: 'eager' };
}

async function startedWorld(opts: { piFolder?: boolean; settings?: Record<string, unknown> } = {}) {
  const log = join(logs, `starts-${Math.random().toString(16).slice(2)}.log`);
  world = await createWorld({
    script: [],
    mcpJson: { mcpServers: { mine: logged(log, 'user-mine'), shadow: logged(log, 'user-shadow') } },
    ...(opts.piFolder === false
      ? {}
      : {
          projectMcpJson: {
            mcpServers: { local: logged(log, 'project-local'), shadow: logged(log, 'project-shadow') },
          },
        }),
    ...(opts.settings ? { settings: opts.settings } : {}),
    files: {
      'project/.mcp.json': {
        mcpServers: { claude: logged(log, 'project-claude'), shadow: logged(log, 'project-shadow') },
      },
    },
  });
  return { logPath: log };
}

async function status(pi: PiRpc): Promise<string> {
  let text = '';
  await vi.waitFor(
    async () => {
      const out = await pi.runCommand('/mcp');
      text = out.notifications.map((n) => n.message).join('\n');
      expect(text).not.toMatch(/: (connecting|not started)/);
    },
    { timeout: 20_000, interval: 200 },
  );
  return text;
}

const starts = (log: string) => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').sort() : []);

describe('project trust in the real Pi', () => {
  it('an untrusted project starts none of its servers; user servers run as configured', async () => {
    const { logPath } = await startedWorld();
    rpc = await startPiRpc({ dir: world!.dir, extensions: [EXTENSION_PACKAGE], args: ['--no-approve'] });
    const text = await status(rpc);
    expect(text).toMatch(/^mine: connected, shared \(host pid \d+\) — eager/m);
    expect(text).toMatch(/^shadow: connected, shared \(host pid \d+\) — eager/m);
    expect(text).toMatch(/^local: skipped — the project is not trusted/m);
    expect(text).toMatch(/^claude: skipped — the project is not trusted/m);
    expect(text).toMatch(/accept the trust prompt, or start Pi with --approve\), then \/reload/);
    expect(await rpc.close()).toEqual({ code: 0, signal: null });
    expect(starts(logPath)).toEqual(['user-mine', 'user-shadow']);
  });

  it.each([
    ['Pi’s default', {}],
    ['defaultProjectTrust "never"', { defaultProjectTrust: 'never' }],
  ])(
    'with %s (no .pi/ folder: Pi trusts without asking) its .mcp.json servers wait for consent',
    async (_, settings) => {
      const { logPath } = await startedWorld({ piFolder: false, settings });
      rpc = await startPiRpc({ dir: world!.dir, extensions: [EXTENSION_PACKAGE] });
      const text = await status(rpc);
      expect(text).toMatch(/^mine: connected, shared \(host pid \d+\) — eager/m);
      expect(text).toMatch(/^shadow: connected, shared \(host pid \d+\) — eager/m);
      expect(text).toMatch(
        /^claude: skipped — defined by a project file and not allowed for this project yet/m,
      );
      expect(text).toMatch(/pi-mcp-actors allow claude --cwd /);
      expect(await rpc.close()).toEqual({ code: 0, signal: null });
      expect(starts(logPath)).toEqual(['user-mine', 'user-shadow']);
    },
  );

  it('/mcp allow (RPC never asks) starts the waiting server, and the next start remembers it', async () => {
    const { logPath } = await startedWorld({ piFolder: false });
    rpc = await startPiRpc({ dir: world!.dir, extensions: [EXTENSION_PACKAGE] });
    await status(rpc);
    const listed = await rpc.runCommand('/mcp allow');
    expect(listed.notifications.map((n) => n.message).join('\n')).toMatch(
      /^claude \(.*\.mcp\.json\)\n {2}runs: sh -c /m,
    );
    const allowed = await rpc.runCommand('/mcp allow claude');
    expect(allowed.notifications.map((n) => n.message).join('\n')).toMatch(
      /Allowed for .*: claude\. Starting them\./,
    );
    let text = await status(rpc);
    await vi.waitFor(async () => {
      text = await status(rpc!);
      expect(text).toMatch(/^claude: connected, shared \(host pid \d+\) — eager/m);
    });
    // The project's `shadow` still waits; the user's own `shadow` runs meanwhile, and is not "skipped".
    expect(text).toMatch(/^shadow: connected, shared \(host pid \d+\) — eager/m);
    expect(text).not.toMatch(/^shadow: skipped/m);
    expect(await rpc.close()).toEqual({ code: 0, signal: null });
    expect(starts(logPath)).toContain('project-claude');

    rpc = await startPiRpc({ dir: world!.dir, extensions: [EXTENSION_PACKAGE] });
    expect(await status(rpc)).toMatch(/^claude: connected, shared \(host pid \d+\) — eager/m);
    expect(await rpc.close()).toEqual({ code: 0, signal: null });
    // Remembered: connected without asking, on the copy the first session started (warm in the host).
    expect(starts(logPath).filter((label) => label === 'project-claude')).toHaveLength(1);
    expect(starts(logPath)).not.toContain('project-shadow');
  });

  it('a trusted project (--approve) starts its servers, and its entry replaces the user one', async () => {
    const { logPath } = await startedWorld();
    rpc = await startPiRpc({ dir: world!.dir, extensions: [EXTENSION_PACKAGE], args: ['--approve'] });
    const text = await status(rpc);
    for (const name of ['mine', 'shadow', 'local', 'claude'])
      expect(text).toMatch(new RegExp(`^${name}: connected, shared \\(host pid \\d+\\) — eager`, 'm'));
    expect(await rpc.close()).toEqual({ code: 0, signal: null });
    expect(starts(logPath)).toEqual(['project-claude', 'project-local', 'project-shadow', 'user-mine']);
  });
});
