// OS process listing from /proc (Linux), so tests can assert that no MCP server outlives Pi.
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcInfo {
  pid: number;
  ppid: number;
  pgid: number;
  /** /proc state letter: R, S, D, Z (zombie), ... */
  state: string;
  /** argv, empty for kernel threads and for processes that just exited. */
  cmdline: string[];
}

function readProc(pid: number): ProcInfo | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // `pid (comm) state ppid pgrp ...`; comm may contain spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    if (cmdline.at(-1) === '') cmdline.pop();
    return { pid, state: fields[0] ?? '?', ppid: Number(fields[1]), pgid: Number(fields[2]), cmdline };
  } catch {
    return undefined; // exited while we looked
  }
}

/** Every process visible in /proc. */
export function listProcesses(): ProcInfo[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    throw new Error('listProcesses needs /proc (Linux)');
  }
  const procs: ProcInfo[] = [];
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    const info = readProc(Number(name));
    if (info) procs.push(info);
  }
  return procs;
}

/** Processes descended from `pid` (children, grandchildren, ...), not `pid` itself. */
export function descendantsOf(pid: number, procs: ProcInfo[] = listProcesses()): ProcInfo[] {
  const byParent = new Map<number, ProcInfo[]>();
  for (const p of procs) byParent.set(p.ppid, [...(byParent.get(p.ppid) ?? []), p]);
  const out: ProcInfo[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of byParent.get(queue.shift()!) ?? []) {
      out.push(child);
      queue.push(child.pid);
    }
  }
  return out;
}

/** Live processes (zombies left out unless asked) whose info matches, e.g. a fixture's unique argv. */
export function processesMatching(
  predicate: (p: ProcInfo) => boolean,
  opts: { includeZombies?: boolean } = {},
): ProcInfo[] {
  return listProcesses().filter((p) => (opts.includeZombies || p.state !== 'Z') && predicate(p));
}

/** True while `pid` exists and is not a zombie. */
export function isRunning(pid: number): boolean {
  const info = readProc(pid);
  return info !== undefined && info.state !== 'Z';
}

/** Test cleanup: signal each pid that still runs (never by name). */
export function killPids(pids: number[], signal: NodeJS.Signals = 'SIGKILL'): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}
