// The first time a Pi session ends while a server it used runs on in the shared host, the user is told
// where it lives, until when, and how to end it; once per agent dir. The real Pi (`pi -p`), the real
// host and a real stdio server.

import { afterEach, beforeAll, expect, it, vi } from 'vitest';
import { openHost } from '../../src/adapters/host/start-host.ts';
import { ENSURE_PI_TIMEOUT_MS, ensurePi } from './harness/ensure-pi.ts';
import { EXTENSION, stdioEntry, TOOL_SEARCH, uniqueMarker } from './harness/mcp.ts';
import { isRunning } from './harness/processes.ts';
import { runPiPrint } from './harness/run-pi.ts';
import { createWorld, type World } from './harness/world.ts';

/** A `pi -p` run on a loaded machine (the two cores are shared) may take longer than the default. */
const LOADED_MS = 90_000;

let world: World | undefined;
let hostPid: number | undefined;

beforeAll(async () => {
  await ensurePi();
}, ENSURE_PI_TIMEOUT_MS);

afterEach(async () => {
  if (hostPid !== undefined) {
    try {
      process.kill(hostPid, 'SIGTERM');
    } catch {}
    const pid = hostPid;
    await vi.waitFor(() => expect(isRunning(pid)).toBe(false), 10_000);
  }
  hostPid = undefined;
  await world?.cleanup();
  world = undefined;
});

const turn = (id: string) => [
  { toolCalls: [{ id: `${id}_search`, name: TOOL_SEARCH, arguments: { query: 'select:notes__echo' } }] },
  { toolCalls: [{ id: `${id}_call`, name: 'notes__echo', arguments: { text: id } }] },
  { text: `${id} done` },
];

const NOTICE =
  /^MCP server notes stays warm in the shared host \(pid (\d+)\) until about \d\d:\d\d, longer while another session uses it; `pi-mcp-actors host` shows them, `pi-mcp-actors host stop` ends them\. \(Said once\.\)$/m;

it('says once where the servers a session leaves live, and until when', async () => {
  world = await createWorld({
    script: [...turn('first'), ...turn('second')],
    mcpJson: { mcpServers: { notes: stdioEntry(uniqueMarker('stay'), [], { inheritEnv: false }) } },
  });
  const agentDir = world.dir.env.PI_CODING_AGENT_DIR!;
  const first = await runPiPrint({
    dir: world.dir,
    extensions: [EXTENSION],
    prompt: 'Echo once',
    timeoutMs: LOADED_MS,
  });
  expect(first.code, first.stderr).toBe(0);
  const client = await openHost({ agentDir, label: 'pi-mcp-actors host' });
  hostPid = (await client.status()).pid;
  client.close();
  expect(first.stderr).toMatch(NOTICE);
  expect(NOTICE.exec(first.stderr)?.[1]).toBe(String(hostPid));
  // Not on stdout, where `pi -p` prints the answer.
  expect(first.stdout).not.toContain('stays warm');

  const second = await runPiPrint({
    dir: world.dir,
    extensions: [EXTENSION],
    prompt: 'Echo again',
    timeoutMs: LOADED_MS,
  });
  expect(second.code, second.stderr).toBe(0);
  expect(second.stderr).not.toContain('stays warm');
}, 240_000);
