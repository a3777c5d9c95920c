// What ToolSearch tells the model about servers it could not list: once per session, in words for
// the model (no slash commands), and `server:<name>` of such a server says why instead of "no server".

import { afterEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { createRuntime, type Runtime } from '../../../src/actors/session-actor.ts';
import { nullLogger } from '../../../src/logger.ts';
import type { Connector } from '../../../src/machines/server-types.ts';
import { ConnectError } from '../../../src/ports/mcp.ts';
import { SecretValues } from '../../../src/redact/index.ts';
import { silentHost } from '../../../src/session/host-port.ts';
import { FakeConnection, tool } from '../../machine/fakes.ts';
import { definition, loadedConfig } from '../../support/config.ts';

let runtime: Runtime | undefined;
afterEach(async () => {
  await runtime?.stop();
  runtime?.dispose();
  runtime = undefined;
});

const connector: Connector = async (def) => {
  if (def.name === 'broken') throw new ConnectError('exited', '"broken" exited with code 3 during startup');
  return new FakeConnection([tool('echo')]);
};

async function start(): Promise<Runtime> {
  runtime = createRuntime({
    secrets: new SecretValues(),
    host: silentHost(),
    connector,
    loadConfig: () => loadedConfig([definition({ name: 'good' }), definition({ name: 'broken' })]),
    logger: nullLogger,
    tempDir: '/nonexistent',
    clock: new SimulatedClock(),
  });
  await runtime.start({ cwd: '/p', projectTrusted: true });
  return runtime;
}

const text = (result: { content: Array<{ type: string; text?: string }> }) =>
  result.content.map((c) => c.text ?? '').join('\n');

describe('ToolSearch notes about failing servers', () => {
  it('are told once per session, for the model, without /mcp commands', async () => {
    const r = await start();
    const first = text(await r.toolSearch('echo'));
    expect(first).toMatch(/Note: MCP server "broken" failed to connect: "broken" exited with code 3/);
    expect(first).toMatch(/tell the user that "broken" is failing/);
    expect(first).not.toMatch(/\/mcp/);
    const second = text(await r.toolSearch('select:good__echo'));
    expect(second).not.toMatch(/broken/);
  });

  it('server:<failing server> says why it has no tools, once, not "No server named"', async () => {
    const r = await start();
    const answer = text(await r.toolSearch('server:broken'));
    expect(answer).not.toMatch(/No server named/);
    expect(answer).toMatch(/^MCP server "broken" failed to connect: "broken" exited with code 3/);
    expect(answer.match(/broken" failed/g)).toHaveLength(1);
    expect(text(await r.toolSearch('server:nothere'))).toMatch(/No server named "nothere"/);
  });
});
