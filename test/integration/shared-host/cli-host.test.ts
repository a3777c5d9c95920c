// `pi-mcp-actors host`: the host's sessions and instances, without starting a host.

import { writeFileSync } from 'node:fs';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openHost } from '../../../src/adapters/host/start-host.ts';
import { runCli } from '../../../src/cli/main.ts';
import { stdioDefinition } from '../../fixtures/servers/definitions.ts';
import { isAlive, stdioFixture } from '../../fixtures/servers/spawn.ts';
import { eventually, HostWorld } from './harness.ts';

let world: HostWorld;
let savedAgentDir: string | undefined;

beforeEach(() => {
  world = new HostWorld();
  savedAgentDir = process.env.PI_CODING_AGENT_DIR;
  process.env.PI_CODING_AGENT_DIR = world.agentDir;
});

afterEach(async () => {
  if (savedAgentDir === undefined) delete process.env.PI_CODING_AGENT_DIR;
  else process.env.PI_CODING_AGENT_DIR = savedAgentDir;
  await world.dispose();
});

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, {
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    stdinLines: async function* () {},
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

it('says when no host runs (and starts none)', async () => {
  const { code, out } = await cli('host');
  expect(code).toBe(0);
  expect(out).toContain('No shared host is running');
  expect(out).toContain(world.socket);
  expect(await world.status()).toBeUndefined();
});

it("lists the host's sessions and instances", async () => {
  await world.session('session A').connect(stdioDefinition([], { inheritEnv: false }));
  const { code, out } = await cli('host');
  expect(code).toBe(0);
  expect(out).toMatch(/Shared host \S+, pid \d+/);
  expect(out).toContain('Sessions attached: 1');
  expect(out).toContain('session A');
  expect(out).not.toContain('Connected, nothing attached');
  expect(out).toMatch(
    /fixture-stdio \[project .*\] connected, pid \d+: 1 attached, 0 in flight; tags usable/,
  );
  const json = JSON.parse((await cli('host', '--json')).out);
  expect(json).toMatchObject({
    running: true,
    instances: [{ server: 'fixture-stdio', state: 'connected', tags: ['usable'], attached: 1 }],
  });
});

it('with settings.sharedHost, `status` connects through the host, and the server stays warm there', async () => {
  writeFileSync(
    `${world.agentDir}/mcp.json`,
    JSON.stringify({
      settings: { sharedHost: true },
      mcpServers: { fx: { ...stdioFixture(), inheritEnv: false } },
    }),
  );
  const { code, out } = await cli('status', '--cwd', world.project);
  expect(code, out).toBe(0);
  const status = await world.status();
  expect(out).toMatch(new RegExp(`^fx: connected, shared \\(host pid ${status?.pid}\\) — `, 'm'));
  expect(status?.instances).toEqual([
    expect.objectContaining({ server: 'fx', state: 'connected', attached: 0 }),
  ]);
  expect((await cli('host')).out).toMatch(/fx \[project .*\] connected/);
  const json = JSON.parse((await cli('status', '--cwd', world.project, '--json')).out);
  expect(json.servers).toEqual([expect.objectContaining({ name: 'fx', sharedHost: status?.pid })]);
});

it('`host stop` stops the running host, which closes its servers', async () => {
  const connection = await world.session('A').connect(stdioDefinition([], { inheritEnv: false }));
  const hostPid = (await world.status())!.pid;
  const { code, out } = await cli('host', 'stop');
  expect(code).toBe(0);
  expect(out).toBe(`Stopped the shared host (pid ${hostPid}).`);
  await eventually(() => {
    expect(isAlive(hostPid)).toBe(false);
    expect(isAlive(connection.pid!)).toBe(false);
  }, 10_000);
  expect((await cli('host', 'stop', 'now')).code).toBe(2);
});

it('a line greeted ahead of use, with nothing attached, is not counted as an attached session', async () => {
  await world.session('session A').connect(stdioDefinition([], { inheritEnv: false }));
  const ahead = await openHost({ agentDir: world.agentDir, build: world.build, label: 'ahead' });
  try {
    const { out } = await cli('host');
    expect(out).toContain('Sessions attached: 1');
    expect(out).toMatch(new RegExp(`^Connected, nothing attached: ahead \\(pid ${process.pid}\\)$`, 'm'));
  } finally {
    ahead.close();
  }
});
