// The host's record of the server process groups it runs, so that none outlives it: a host killed
// with SIGKILL closes no server, and a server that does not end on stdin EOF (a timer, a pool, a
// Python or Go runtime) would run on for nobody. Each host writes one file in the agent dir's private
// host folder, named by its own pid and start time, listing each group it started (the leader's pid,
// which is the group id, and the leader's start time); the next host to start, or a session that sees
// its host's line drop, ends the groups of a host that is no longer running (./orphans.ts). A host
// that stops normally has closed its servers and removes its file.

import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { replaceAtomically } from '../fs/atomic-file.ts';
import { hostDir } from './paths.ts';
import { ensurePrivateFolder } from './private-place.ts';
import { type ProcessTable, processTable, type StartStamp } from './process-table.ts';

export interface GroupRecord {
  /** The group id: the pid of the server process that leads it. */
  pgid: number;
  /** The leader's start time when it was spawned. */
  start: StartStamp;
  /** The program, for the log. */
  command: string;
}

export interface HostRecord {
  host: { pid: number; start: StartStamp };
  /** The boot the start times belong to (Linux); a record of another boot names nobody alive. */
  boot?: string;
  groups: GroupRecord[];
}

/** The folder of the hosts' records: beside the host's socket and log, private to the user. */
export function recordsDir(agentDir: string): string {
  return join(hostDir(agentDir), 'servers');
}

const FILE = /^host-\d+-[^/]+\.json$/;

/** Every host record in the folder, with its file (unreadable ones skipped: a write in progress renames in whole). */
export function readRecords(dir: string): Array<{ file: string; record: HostRecord }> {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const found: Array<{ file: string; record: HostRecord }> = [];
  for (const name of names) {
    if (!FILE.test(name)) continue;
    const file = join(dir, name);
    try {
      const record = JSON.parse(readFileSync(file, 'utf8')) as HostRecord;
      if (record?.host && Array.isArray(record.groups)) found.push({ file, record });
    } catch {}
  }
  return found;
}

/** This host's file: groups added as they are spawned, removed once they have ended. */
export class ProcessRecords {
  readonly file: string;
  private readonly record: HostRecord;
  private writing: Promise<void> = Promise.resolve();
  private dirty = false;
  private closed = false;

  constructor(
    private readonly dir: string,
    private readonly table: ProcessTable = processTable(),
  ) {
    const start = table.startOf(process.pid) ?? `w:${Math.floor(Date.now() / 1000)}`;
    const boot = table.bootId();
    this.record = { host: { pid: process.pid, start }, ...(boot ? { boot } : {}), groups: [] };
    this.file = join(dir, `host-${process.pid}-${start.replace(/[^0-9A-Za-z]/g, '_')}.json`);
  }

  started(pgid: number, command: string): void {
    const start = this.table.startOf(pgid);
    // Gone already: nothing to record (its end is handled by whoever spawned it).
    if (start === undefined) return;
    this.record.groups.push({ pgid, start, command });
    this.save();
  }

  ended(pgid: number): void {
    const before = this.record.groups.length;
    this.record.groups = this.record.groups.filter((group) => group.pgid !== pgid);
    if (this.record.groups.length !== before) this.save();
  }

  /** The writes asked so far have landed. */
  flushed(): Promise<void> {
    return this.writing;
  }

  /** The host has closed its servers: its file goes, after a write in progress (none after this). */
  async remove(): Promise<void> {
    this.closed = true;
    await this.writing;
    rmSync(this.file, { force: true });
  }

  /** One write at a time, each with the latest list (a burst of spawns is one or two writes). */
  private save(): void {
    if (this.dirty || this.closed) return;
    this.dirty = true;
    this.writing = this.writing.then(async () => {
      this.dirty = false;
      if (this.closed) return;
      // Never bring back a host folder that was deleted (its agent dir being removed).
      if (!existsSync(dirname(this.dir))) return;
      try {
        ensurePrivateFolder(this.dir);
        await replaceAtomically(this.file, `${JSON.stringify(this.record)}\n`, { mode: 0o600 });
      } catch {
        // Best effort: a host that cannot write its records still runs its servers.
      }
    });
  }
}
