// 8 processes x 100 writes of different servers into one cache file: every entry survives, and a
// reader polling the file throughout never sees a torn or invalid file, nor an entry disappearing.

import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';

const WRITERS = 8;
const WRITES_EACH = 100;
const writerScript = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  'fixtures',
  'cache',
  'cache-writer.ts',
);

let dir: string | undefined;
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  children.length = 0;
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

interface Writer {
  child: ChildProcess;
  ready: Promise<void>;
  exit: Promise<{ code: number | null; stderr: string }>;
}

function startWriter(file: string, id: number): Writer {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', writerScript, file, String(id), String(WRITES_EACH)],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (chunk) => {
    stderr += chunk;
  });
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      if (String(chunk).includes('ready')) resolve();
    });
    child.once('exit', () => reject(new Error(`writer ${id} exited before ready: ${stderr}`)));
  });
  const exit = new Promise<{ code: number | null; stderr: string }>((resolve) => {
    child.once('exit', (code) => resolve({ code, stderr }));
  });
  return { child, ready, exit };
}

it(`${WRITERS} processes x ${WRITES_EACH} writes: no entry lost, never a torn file`, async () => {
  dir = fs.mkdtempSync(join(tmpdir(), 'cache-concurrency-'));
  const file = join(dir, 'mcp-cache.json');
  const writers = Array.from({ length: WRITERS }, (_, id) => startWriter(file, id));
  await Promise.all(writers.map((w) => w.ready));

  let finished = false;
  const allExited = Promise.all(writers.map((w) => w.exit)).then((results) => {
    finished = true;
    return results;
  });
  const started = performance.now();
  for (const writer of writers) writer.child.stdin!.write('go\n');

  // Poll the file while the writers run.
  let reads = 0;
  let lastCount = 0;
  const problems: string[] = [];
  while (!finished) {
    let text: string | undefined;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') problems.push(String(error));
    }
    if (text !== undefined) {
      reads++;
      try {
        const parsed = JSON.parse(text);
        if (parsed.version !== 1 || typeof parsed.servers !== 'object')
          problems.push(`bad shape: ${text.slice(0, 80)}`);
        const count = Object.keys(parsed.servers).length;
        if (count < lastCount) problems.push(`entries went from ${lastCount} to ${count}`);
        lastCount = count;
      } catch (error) {
        problems.push(`unparseable (${text.length} bytes): ${String(error)}`);
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  const results = await allExited;
  const elapsed = performance.now() - started;

  expect(results.map((r) => r.stderr).filter(Boolean)).toEqual([]);
  expect(results.map((r) => r.code)).toEqual(Array(WRITERS).fill(0));
  expect(problems).toEqual([]);
  expect(reads).toBeGreaterThan(0);

  const final = JSON.parse(fs.readFileSync(file, 'utf8'));
  const expected = [];
  for (let id = 0; id < WRITERS; id++) for (let n = 0; n < WRITES_EACH; n++) expected.push(`w${id}-s${n}`);
  expect(Object.keys(final.servers).sort()).toEqual(expected.sort());
  expect(fs.readdirSync(dir).sort()).toEqual(['mcp-cache.json']);
  console.log(
    `cache concurrency: ${WRITERS * WRITES_EACH} writes in ${elapsed.toFixed(0)} ms, ${reads} concurrent reads, all valid`,
  );
}, 120_000);
