// Consent is for exactly what the user saw (issue 34), in the real Pi 1.5.2 without --approve:
// - Pi's "Trust parent folder" (remembered in its trust.json as the parent's path) does not start a
//   sibling clone's `.mcp.json` server: it waits for our own consent (finding 4);
// - a project `.mcp.json` of just `{"imports":["cursor"]}` does not start the user's own
//   `~/.cursor/mcp.json` server (finding 5);
// - after `pi-mcp-actors allow` of `sh ./server.sh`, a changed server.sh does not start (finding 6);
// - `/mcp forget` takes a consent back.
// Every server start appends its label to a file, so "never started" is checked directly.
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { stdioFixture } from '../fixtures/servers/spawn.ts';
import { runCliBin } from '../support/output-channels.ts';
import { ENSURE_PI_TIMEOUT_MS, ensurePi } from './harness/ensure-pi.ts';
import { EXTENSION_PACKAGE, killMarked, uniqueMarker } from './harness/mcp.ts';
import { type PiRpc, startPiRpc } from './harness/run-pi.ts';
import { createWorld, type World } from './harness/world.ts';

let world: World | undefined;
let rpc: PiRpc | undefined;
const marker = uniqueMarker('scope');
let logs: string;

beforeAll(async () => {
  logs = mkdtempSync(join(tmpdir(), 'pi-e2e-scope-'));
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

const starts = (log: string) => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').sort() : []);

/** /mcp's text once no server is still connecting. */
async function status(pi: PiRpc): Promise<string> {
  let text = '';
  await vi.waitFor(
    async () => {
      const out = await pi.runCommand('/mcp');
      text = out.notifications.map((n) => n.message).join('\n');
      expect(text).toMatch(/^mine: connected/m);
      expect(text).not.toMatch(/: (connecting|not started)/);
    },
    { timeout: 30_000, interval: 200 },
  );
  return text;
}

describe('consent scope in the real Pi', () => {
  it.each([
    ['.mcp.json only (Pi trusts it without asking)', {}],
    [
      '.pi/settings.json too (Pi applies the parent answer without asking)',
      { 'project/.pi/settings.json': {} },
    ],
  ])("Pi's remembered trust of the parent folder does not start a clone's server: %s", async (_, extra) => {
    const log = join(logs, `starts-${Math.random().toString(16).slice(2)}.log`);
    world = await createWorld({
      script: [],
      mcpJson: { mcpServers: { mine: logged(log, 'user-mine') } },
      files: { 'project/.mcp.json': { mcpServers: { clone: logged(log, 'project-clone') } }, ...extra },
    });
    // What Pi's "Trust parent folder (…)" saves: the parent's canonical path.
    const parent = realpathSync(world.dir.root);
    writeFileSync(join(world.dir.agentDir, 'trust.json'), `${JSON.stringify({ [parent]: true })}\n`);
    rpc = await startPiRpc({ dir: world.dir, extensions: [EXTENSION_PACKAGE] });
    const text = await status(rpc);
    expect(text).toMatch(/^clone: skipped — defined by a project file and not allowed for this project yet/m);
    expect(await rpc.close()).toEqual({ code: 0, signal: null });
    expect(starts(log)).toEqual(['user-mine']);
  });

  it('Pi’s remembered trust of exactly the project folder still counts', async () => {
    const log = join(logs, `starts-${Math.random().toString(16).slice(2)}.log`);
    world = await createWorld({
      script: [],
      mcpJson: { mcpServers: { mine: logged(log, 'user-mine') } },
      files: { 'project/.mcp.json': { mcpServers: { clone: logged(log, 'project-clone') } } },
    });
    const project = realpathSync(world.dir.projectDir);
    writeFileSync(join(world.dir.agentDir, 'trust.json'), `${JSON.stringify({ [project]: true })}\n`);
    rpc = await startPiRpc({ dir: world.dir, extensions: [EXTENSION_PACKAGE] });
    expect(await status(rpc)).toMatch(/^clone: connected/m);
    expect(await rpc.close()).toEqual({ code: 0, signal: null });
    expect(starts(log)).toEqual(['project-clone', 'user-mine']);
  });

  it("a project's imports of cursor do not start the user's own ~/.cursor/mcp.json server", async () => {
    const log = join(logs, `starts-${Math.random().toString(16).slice(2)}.log`);
    world = await createWorld({
      script: [],
      mcpJson: { mcpServers: { mine: logged(log, 'user-mine') } },
      files: {
        'home/.cursor/mcp.json': { mcpServers: { usercursor: logged(log, 'user-cursor') } },
        'project/.mcp.json': { imports: ['cursor'] },
      },
    });
    rpc = await startPiRpc({ dir: world.dir, extensions: [EXTENSION_PACKAGE] });
    const text = await status(rpc);
    expect(text).not.toMatch(/usercursor/);
    expect(await rpc.close()).toEqual({ code: 0, signal: null });
    expect(starts(log)).toEqual(['user-mine']);
  });

  it('/mcp forget takes a consent back: the server stops in this session and waits again', async () => {
    const log = join(logs, `starts-${Math.random().toString(16).slice(2)}.log`);
    world = await createWorld({
      script: [],
      mcpJson: { mcpServers: { mine: logged(log, 'user-mine') } },
      files: { 'project/.mcp.json': { mcpServers: { clone: logged(log, 'project-clone') } } },
    });
    rpc = await startPiRpc({ dir: world.dir, extensions: [EXTENSION_PACKAGE] });
    await status(rpc);
    await rpc.runCommand('/mcp allow clone');
    await vi.waitFor(async () => expect(await status(rpc!)).toMatch(/^clone: connected/m), {
      timeout: 30_000,
    });
    const forgot = await rpc.runCommand('/mcp forget clone');
    expect(forgot.notifications.map((n) => n.message).join('\n')).toMatch(
      /Forgot your consent for .*: clone \(kept in .*mcp-project-consent\.json\)\. They stop now/,
    );
    await vi.waitFor(
      async () =>
        expect(await status(rpc!)).toMatch(/^clone: skipped — defined by a project file and not allowed/m),
      { timeout: 30_000 },
    );
    expect(await rpc.close()).toEqual({ code: 0, signal: null });
    expect(starts(log)).toEqual(['project-clone', 'user-mine']);
  });

  it('after allow of sh ./server.sh, a changed server.sh does not start in Pi, and Pi says why', async () => {
    const log = join(logs, `starts-${Math.random().toString(16).slice(2)}.log`);
    const serve = (label: string) => {
      const { command, args } = stdioFixture(['--name', marker]);
      return `echo ${label} >> '${log}'; exec ${[command, ...args].map((a) => `'${a}'`).join(' ')}\n`;
    };
    world = await createWorld({
      script: [],
      mcpJson: { mcpServers: { mine: logged(log, 'user-mine') } },
      files: {
        'project/.mcp.json': {
          mcpServers: { script: { command: 'sh', args: ['./server.sh'], lifecycle: 'eager' } },
        },
        'project/server.sh': serve('v1'),
      },
    });
    const { home, agentDir, projectDir } = world.dir;
    expect((await runCliBin(['allow', 'script'], { cwd: projectDir, home, agentDir })).code).toBe(0);
    rpc = await startPiRpc({ dir: world.dir, extensions: [EXTENSION_PACKAGE] });
    expect(await status(rpc)).toMatch(/^script: connected/m);
    expect(await rpc.close()).toEqual({ code: 0, signal: null });

    writeFileSync(join(projectDir, 'server.sh'), serve('v2'));
    rpc = await startPiRpc({ dir: world.dir, extensions: [EXTENSION_PACKAGE] });
    expect(await status(rpc)).toMatch(
      /^script: skipped — defined by a project file, waiting for your consent again: \.\/server\.sh changed since you allowed it/m,
    );
    expect(await rpc.close()).toEqual({ code: 0, signal: null });
    expect(starts(log)).toEqual(['user-mine', 'v1']);
  }, 120_000);
});
