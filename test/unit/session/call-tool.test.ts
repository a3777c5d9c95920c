// The call use case through its deps object, over a real session runtime and a real stdio fixture
// server (`alpha`, `approveTools: true`): what the deps give a call (stats, a removed server's note, the
// approval dialog) and which session an approval lands in.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createRuntime, type Runtime } from '../../../src/actors/session-actor.ts';
import { connectMcp } from '../../../src/adapters/mcp/index.ts';
import { nullLogger } from '../../../src/logger.ts';
import type { StartRequest } from '../../../src/machines/session.machine.ts';
import { SecretValues } from '../../../src/redact/index.ts';
import { callTool } from '../../../src/session/call-tool.ts';
import { silentHost } from '../../../src/session/host-port.ts';
import type { ApprovalRequest } from '../../../src/tools/approval.ts';
import { createCallStats } from '../../../src/tools/stats.ts';
import { stdioFixture } from '../../fixtures/servers/spawn.ts';
import { definition, loadedConfig } from '../../support/config.ts';
import { untilNoFixtureServers } from '../../support/fixture-processes.ts';
import { resultText } from '../../support/runtime.ts';
import { runtimeDeps } from '../../support/session-deps.ts';

let root: string;
let runtime: Runtime;
let request: StartRequest;

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'pi-mcp-call-tool-'));
  const config = loadedConfig([
    definition({ name: 'alpha', ...stdioFixture(['--name', 'alpha']), approveTools: ['add'] }),
  ]);
  runtime = createRuntime({
    secrets: new SecretValues(),
    host: silentHost(),
    connector: connectMcp,
    loadConfig: () => config,
    logger: nullLogger,
    tempDir: root,
  });
  request = { cwd: root, projectTrusted: true };
  // No cache: the session connects alpha once to learn its tools.
  await runtime.start(request);
  await vi.waitFor(() => expect(runtime.actor.getSnapshot().context.catalogs.alpha).toBeDefined(), {
    timeout: 20_000,
  });
});

afterEach(async () => {
  await runtime.stop();
  runtime.dispose();
  rmSync(root, { recursive: true, force: true });
  await untilNoFixtureServers();
});

describe('callTool', () => {
  it('runs the call on the session server and counts it in the stats the deps give', async () => {
    const stats = createCallStats({ path: join(root, 'stats.json'), flushDelayMs: 60_000 });
    const result = await callTool(runtimeDeps(runtime, root, { stats: () => stats }), {
      name: 'alpha__echo',
      args: { text: 'hello' },
    });
    expect(result.isError).toBeFalsy();
    expect(resultText(result)).toContain('hello');
    expect(stats.snapshot()['alpha/echo']).toMatchObject({ calls: 1, errors: 0 });
    await stats.dispose();
  });

  it('a tool of a server a config edit removed is answered with where it went', async () => {
    const removed = { server: 'beta', file: join(root, 'mcp.json') };
    const result = await callTool(
      runtimeDeps(runtime, root, { removedTool: (name) => (name === 'beta__echo' ? removed : undefined) }),
      { name: 'beta__echo', args: {} },
    );
    expect(result.isError).toBe(true);
    expect(resultText(result)).toBe(
      `Tool beta__echo is gone: MCP server "beta" was removed from the config (${removed.file}). Use ToolSearch to find what the config offers now.`,
    );
  });

  it('an Allow for this session is kept for the session the call began in, not the next one', async () => {
    const asked: ApprovalRequest[] = [];
    let restartWhileAsked = false;
    const deps = runtimeDeps(runtime, root, {
      askApproval: async (approval) => {
        asked.push(approval);
        if (restartWhileAsked) await runtime.start(request);
        return 'session';
      },
    });
    const call = () => callTool(deps, { name: 'alpha__add', args: { a: 2, b: 3 } });

    expect(resultText(await call())).toContain('5');
    expect(resultText(await call())).toContain('5');
    expect(asked).toHaveLength(1);
    expect(runtime.actor.getSnapshot().context.approved).toHaveLength(1);

    // The user answers while a new session starts (Pi's /new): the answer is not the new session's.
    await runtime.start(request);
    await vi.waitFor(() => expect(runtime.actor.getSnapshot().context.catalogs.alpha).toBeDefined(), {
      timeout: 20_000,
    });
    restartWhileAsked = true;
    await call();
    expect(asked).toHaveLength(2);
    expect(runtime.actor.getSnapshot().context.approved).toEqual([]);
  });
});
