// What the host needs to know of other processes to end its servers' groups safely: when a process
// started (so a pid the kernel gave to someone else since is never signalled), and which live
// processes are in a process group. Linux reads /proc (the start time is field 22 of
// /proc/<pid>/stat, in clock ticks since boot; the boot id tells one boot from the next); elsewhere
// (macOS, BSD) `ps` answers, with `lstart` (the wall-clock start, to the second) as the start time.

import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** A process start time: `t:<ticks since boot>` from /proc, `w:<epoch seconds>` from `ps`. */
export type StartStamp = string;

interface ProcessRow {
  pid: number;
  pgid: number;
  start: StartStamp;
}

export interface ProcessTable {
  /** When the live (not zombie) process `pid` started; undefined when there is none. */
  startOf(pid: number): StartStamp | undefined;
  /** The live processes of group `pgid`, with their start times. */
  membersOf(pgid: number): ProcessRow[];
  /** What tells this boot from the next (a start time means nothing across boots); undefined if unknown. */
  bootId(): string | undefined;
}

/** Start stamps are only compared when they come from the same source: none is "before" the other otherwise. */
export function startedNotBefore(stamp: StartStamp, reference: StartStamp): boolean {
  const [kind, value] = [stamp.slice(0, 2), Number(stamp.slice(2))];
  if (kind !== reference.slice(0, 2)) return false;
  return value >= Number(reference.slice(2));
}

/** /proc on Linux, `ps` elsewhere. */
export function processTable(): ProcessTable {
  return process.platform === 'linux' ? procTable : psTable;
}

/** state, pgrp and start time of /proc/<pid>/stat (after the command name, which may hold spaces and parentheses). */
function readStat(pid: number | string): { state: string; pgid: number; start: StartStamp } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // Field 3 (state) is the first after ')'; field 5 is pgrp, field 22 starttime.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const state = fields[0] ?? '';
  if (state === 'Z' || state === 'X' || state === 'x') return undefined;
  return { state, pgid: Number(fields[2]), start: `t:${fields[19]}` };
}

export const procTable: ProcessTable = {
  startOf: (pid) => readStat(pid)?.start,
  membersOf(pgid) {
    const rows: ProcessRow[] = [];
    let entries: string[];
    try {
      entries = readdirSync('/proc');
    } catch {
      return rows;
    }
    for (const entry of entries) {
      const first = entry.charCodeAt(0);
      if (first < 48 || first > 57) continue;
      const stat = readStat(entry);
      if (stat?.pgid === pgid) rows.push({ pid: Number(entry), pgid, start: stat.start });
    }
    return rows;
  },
  bootId() {
    try {
      return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    } catch {
      return undefined;
    }
  },
};

/** `ps` rows: pid, pgid, stat, lstart (`Sat Nov 28 07:28:24 2026`). */
function psRows(args: string[]): Array<ProcessRow & { state: string }> {
  let text: string;
  try {
    text = execFileSync('ps', [...args, '-o', 'pid=,pgid=,stat=,lstart='], {
      encoding: 'utf8',
      env: { ...process.env, LC_ALL: 'C', TZ: 'UTC' },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch {
    return []; // `ps -p` exits 1 when the process is not there
  }
  const rows: Array<ProcessRow & { state: string }> = [];
  for (const line of text.split('\n')) {
    const match = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.+?)\s*$/.exec(line);
    if (!match) continue;
    const seconds = Date.parse(`${match[4]} UTC`) / 1000;
    if (!Number.isFinite(seconds)) continue;
    rows.push({ pid: Number(match[1]), pgid: Number(match[2]), state: match[3]!, start: `w:${seconds}` });
  }
  return rows.filter((row) => !row.state.startsWith('Z'));
}

export const psTable: ProcessTable = {
  startOf: (pid) => psRows(['-p', String(pid)]).find((row) => row.pid === pid)?.start,
  membersOf: (pgid) =>
    psRows(['-A'])
      .filter((row) => row.pgid === pgid)
      .map(({ pid, start }) => ({ pid, pgid, start })),
  // The wall-clock start already differs from one boot to the next.
  bootId: () => undefined,
};
