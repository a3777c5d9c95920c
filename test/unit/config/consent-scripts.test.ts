// Which project files an entry names directly (their content is part of a consent, issue 34): words of
// `command`/`args` that are files inside the project, from the server's working folder.

import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { namedScripts } from '../../../src/config/consent-scripts.ts';

let root: string;
let project: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'consent-scripts-')));
  project = join(root, 'project');
  mkdirSync(join(project, 'bin'), { recursive: true });
  writeFileSync(join(project, 'server.sh'), 'echo one');
  writeFileSync(join(project, 'bin', 'run'), 'echo run');
  writeFileSync(join(root, 'outside.sh'), 'echo outside');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const named = (words: { command?: string; args?: string[]; cwd?: string }) =>
  Object.keys(namedScripts(words, project));

describe('the project files an entry names', () => {
  it('are the words that are files inside the project, as written', () => {
    expect(named({ command: 'sh', args: ['./server.sh'] })).toEqual(['./server.sh']);
    expect(named({ command: 'python3', args: ['server.sh', '--port', '1'] })).toEqual(['server.sh']);
    expect(named({ command: './bin/run' })).toEqual(['./bin/run']);
    expect(named({ command: join(project, 'server.sh') })).toEqual([join(project, 'server.sh')]);
  });

  it('are looked for from the entry’s own cwd', () => {
    expect(named({ command: 'sh', args: ['run'], cwd: 'bin' })).toEqual(['run']);
    expect(named({ command: 'sh', args: ['server.sh'], cwd: 'bin' })).toEqual([]);
  });

  it('leave out flags, folders, missing files and files outside the project', () => {
    expect(named({ command: 'sh', args: ['-c', 'server.sh', 'bin', 'nope.sh'] })).toEqual(['server.sh']);
    expect(named({ command: 'sh', args: ['../outside.sh', join(root, 'outside.sh')] })).toEqual([]);
  });

  it('follow a project symlink, whose target content counts', () => {
    symlinkSync(join(root, 'outside.sh'), join(project, 'link.sh'));
    const before = namedScripts({ command: 'sh', args: ['./link.sh'] }, project);
    expect(Object.keys(before)).toEqual(['./link.sh']);
    writeFileSync(join(root, 'outside.sh'), 'echo changed');
    expect(namedScripts({ command: 'sh', args: ['./link.sh'] }, project)).not.toEqual(before);
  });

  it('hash the content: the same bytes the same, other bytes another', () => {
    const first = namedScripts({ command: 'sh', args: ['./server.sh'] }, project);
    expect(namedScripts({ command: 'sh', args: ['./server.sh'] }, project)).toEqual(first);
    writeFileSync(join(project, 'server.sh'), 'echo two');
    expect(namedScripts({ command: 'sh', args: ['./server.sh'] }, project)).not.toEqual(first);
  });

  it('tell a large file (a compiled server) apart by its size, time and inode', () => {
    writeFileSync(join(project, 'big'), Buffer.alloc(9 * 1024 * 1024, 1));
    const first = namedScripts({ command: './big' }, project);
    expect(first['./big']).toMatch(/^stat:9437184:/);
    writeFileSync(join(project, 'big'), Buffer.alloc(9 * 1024 * 1024 + 1, 1));
    expect(namedScripts({ command: './big' }, project)).not.toEqual(first);
  });
});
