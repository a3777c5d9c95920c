// A save caught between its truncate and its write (an editor that rewrites the file in place, on a
// loaded machine) leaves a config file empty for a moment. Neither the check at a turn's end nor the
// watcher's settled read takes that as "no servers": the config in force stays until the file has
// content again (docs/config.md, "Editing while sessions run").

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { waitFor } from 'xstate';
import type { Runtime } from '../../src/actors/session-actor.ts';
import { connectMcp } from '../../src/adapters/mcp/index.ts';
import { bridgePi } from '../../src/adapters/pi/bridge.ts';
import { stdioFixture } from '../fixtures/servers/spawn.ts';
import { removeTempRoot } from '../support/hosts.ts';
import { RecordingPi } from '../support/recording-pi.ts';

const root = mkdtempSync(join(tmpdir(), 'pi-mcp-empty-save-'));
let runtime: Runtime | undefined;

afterEach(async () => {
  await runtime?.stop();
  runtime?.dispose();
  removeTempRoot(root);
});

const servers = (runtime: Runtime) =>
  (runtime.actor.getSnapshot().context.config?.servers ?? []).map((d) => d.name).sort();

it('an empty config file (a save between truncate and write) keeps the servers until the file has content', async () => {
  const agentDir = join(root, 'agent');
  const project = join(root, 'project');
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(project, { recursive: true });
  const file = join(agentDir, 'mcp.json');
  const save = (names: string[]) =>
    writeFileSync(
      file,
      JSON.stringify({
        settings: { sharedHost: false },
        mcpServers: Object.fromEntries(names.map((n) => [n, stdioFixture(['--name', n])])),
      }),
    );
  save(['alpha']);
  const pi = new RecordingPi(project);
  const bridge = bridgePi(pi, {
    connector: connectMcp,
    env: { PI_CODING_AGENT_DIR: agentDir },
    homeDir: root,
  });
  await pi.emit('session_start', {});
  runtime = await bridge.runtime();
  await waitFor(runtime.actor, (s) => s.context.config !== undefined, { timeout: 30_000 });
  expect(servers(runtime)).toEqual(['alpha']);

  writeFileSync(file, '');
  // The check at a turn's end, then the watcher's settled read.
  runtime.actor.send({ type: 'TURN_END' });
  expect(servers(runtime)).toEqual(['alpha']);
  runtime.actor.send({ type: 'CONFIG_CHECK', force: true });
  expect(servers(runtime)).toEqual(['alpha']);
  expect(runtime.actor.getSnapshot().context.configError).toBeUndefined();

  // The write lands: the edit applies.
  save(['alpha', 'beta']);
  runtime.actor.send({ type: 'CONFIG_CHECK', force: true });
  await waitFor(runtime.actor, (s) => (s.context.config?.servers.length ?? 0) === 2, { timeout: 10_000 });
  expect(servers(runtime)).toEqual(['alpha', 'beta']);
});
