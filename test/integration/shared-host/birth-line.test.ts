// A host's birth line between two real processes, as spawnHost makes it: the starting side's two
// one-way pipes as one line, the started side's stdin and stdout. What the started process writes to
// its stdout otherwise (console output) never reaches the line; the line's close ends it.

import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';
import { BIRTH_LINE_ENV, pairedLine } from '../../../src/host/birth-line.ts';
import { LineChannel } from '../../../src/host/line-channel.ts';
import { eventually } from './harness.ts';

const require = createRequire(import.meta.url);

it('carries messages both ways, and nothing the started process prints besides', async () => {
  const tsx = pathToFileURL(join(dirname(require.resolve('tsx/package.json')), 'dist/loader.mjs')).href;
  const child = spawn(
    process.execPath,
    ['--import', tsx, join(import.meta.dirname, 'scripts', 'born-echo.ts')],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, [BIRTH_LINE_ENV]: '1' },
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const heard: unknown[] = [];
  let closed = false;
  const channel = new LineChannel<unknown, unknown>(
    pairedLine(child.stdout as Socket, child.stdin as Socket),
    (message) => heard.push(message),
    () => {
      closed = true;
    },
  );
  channel.send({ n: 1 });
  channel.send({ n: 2, text: 'two' });
  await eventually(() => expect(heard).toHaveLength(2));
  expect(heard).toEqual([{ echo: { n: 1 } }, { echo: { n: 2, text: 'two' } }]);
  expect(closed).toBe(false);

  channel.close();
  expect({ code: await exited, stderr }).toEqual({ code: 0, stderr: '' });
  await eventually(() => expect(closed).toBe(true));
  expect(heard).toHaveLength(2);
});
