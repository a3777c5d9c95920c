// The inspector's JSONL target: a private file (0600), never reached through a symlink, and lines
// that cannot drive the terminal of a `tail -f`.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createJsonlSink } from '../../../src/inspect/sinks.ts';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'pi-mcp-jsonl-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('the JSONL inspection sink', () => {
  it('creates the file readable by the user only, and appends one clean JSON line per event', async () => {
    const file = join(root, 'events', 'inspect.jsonl');
    const errors: string[] = [];
    const sink = createJsonlSink(file, (e) => errors.push(e));
    sink.start();
    sink.send({ type: '@xstate.event', text: 'bidi \u202eevil\u202c c1 \u009b2J' });
    await sink.close();
    expect(errors).toEqual([]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines.map((l) => JSON.parse(l))).toEqual([{ type: '@xstate.event', text: 'bidi evil c1 ' }]);
  });

  it('an existing file is made private before it is written to', async () => {
    const file = join(root, 'inspect.jsonl');
    writeFileSync(file, '', { mode: 0o644 });
    const sink = createJsonlSink(file, () => {});
    sink.send({ n: 1 });
    await sink.close();
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('refuses a symlink (it could point anywhere) and says so once; the link target is untouched', async () => {
    const victim = join(root, 'victim.txt');
    writeFileSync(victim, 'keep me\n');
    const link = join(root, 'inspect.jsonl');
    symlinkSync(victim, link);
    const errors: string[] = [];
    const sink = createJsonlSink(link, (e) => errors.push(e));
    sink.start();
    sink.send({ n: 1 });
    sink.send({ n: 2 });
    await sink.close();
    expect(readFileSync(victim, 'utf8')).toBe('keep me\n');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/cannot write .*inspect\.jsonl: it is a symbolic link/);
  });

  it('refuses what is not a regular file (a directory) without hanging', async () => {
    const dir = join(root, 'inspect.jsonl');
    mkdirSync(dir);
    const errors: string[] = [];
    const sink = createJsonlSink(dir, (e) => errors.push(e));
    sink.send({ n: 1 });
    await sink.close();
    expect(errors).toHaveLength(1);
  });
});
