// Starting the shared host (src/machines/host-start.machine.ts through src/adapters/host/start-host.ts),
// in a process of its own whose only work is that wait, as a Pi session's first call is (Pi's print mode
// keeps nothing else alive): the host it starts says when it listens, and the wait holds the process
// until then; nothing polls.

import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { useHostWorld } from './harness.ts';

const world = useHostWorld();
const START_HOST = join(import.meta.dirname, '../../../src/adapters/host/start-host.ts');

/** Runs attachToHost in a fresh Node process; resolves with what it printed and its exit code. */
function attachInAProcess(agentDir: string, build: string): Promise<{ out: string; code: number | null }> {
  const script = `const { attachToHost } = await import(${JSON.stringify(START_HOST)});
const client = await attachToHost({ agentDir: ${JSON.stringify(agentDir)} });
console.log('host pid ' + client.hostPid);
client.close();`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    env: { ...process.env, PI_MCP_ACTORS_HOST_BUILD: build },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (text: string) => {
    out += text;
  });
  return new Promise((resolve) => child.once('close', (code) => resolve({ out, code })));
}

it('a process waiting for the host it started stays up until the host listens, then gets its line', async () => {
  const w = world();
  expect(await w.status()).toBeUndefined();
  const { out, code } = await attachInAProcess(w.agentDir, w.build);
  expect(code).toBe(0);
  const status = await w.status();
  expect(status).toBeDefined();
  expect(out.trim()).toBe(`host pid ${status!.pid}`);
});
