// What loading the MCP adapter costs the process that loads it (the shared host loads it as it starts
// listening, its thread blocked meanwhile): not Node's fetch (undici), which an ES import of node:http
// loads by reading every export (Node 22's lazy WebSocket, CloseEvent and MessageEvent), 20–25 ms.
// Run in Node 22 (Pi's, in .cache/pi), the Node the host runs in under Pi.

import { execFileSync } from 'node:child_process';
import { beforeAll, expect, it } from 'vitest';
import { ENSURE_PI_TIMEOUT_MS, ensurePi } from '../../e2e/harness/ensure-pi.ts';

let node22: string;
beforeAll(async () => {
  node22 = (await ensurePi()).node22Path;
}, ENSURE_PI_TIMEOUT_MS);

it("loading the MCP adapter does not load Node's fetch", () => {
  const script = `await import('./src/adapters/mcp/index.ts');
console.log(JSON.stringify(process.moduleLoadList.filter((m) => m.includes('undici'))));`;
  const out = execFileSync(node22, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: new URL('../../..', import.meta.url),
    encoding: 'utf8',
  });
  expect(JSON.parse(out.trim().split('\n').pop()!)).toEqual([]);
});
