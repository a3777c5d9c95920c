// Stdio servers run in their own process group so that ending them also ends whatever they spawned:
// `npx`/`uvx` wrappers start the real server as a grandchild, and killing only the wrapper would leave
// it behind. On Windows there are no process groups; there we fall back to killing the child alone.

import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const isWindows = process.platform === 'win32';

/** Process groups that are still ours; killed synchronously if Pi exits without closing them. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

/** Told of each group spawned here and of its end (the shared host records them: src/host/process-records.ts). */
export interface GroupObserver {
  started(pgid: number, command: string): void;
  ended(pgid: number): void;
}
let observer: GroupObserver | undefined;

/** Sets the one observer of this process's server groups. */
export function observeProcessGroups(given: GroupObserver | undefined): void {
  observer = given;
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const pgid of liveGroups) signalGroup(pgid, 'SIGKILL');
  });
}

export interface SpawnGroupOptions {
  env: Record<string, string>;
  cwd?: string;
}

/** Spawns `command` as the leader of a new process group, with piped stdin/stdout/stderr. */
export function spawnInGroup(
  command: string,
  args: string[],
  options: SpawnGroupOptions,
): ChildProcessWithoutNullStreams {
  const child = spawn(command, args, {
    env: options.env,
    cwd: options.cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
    shell: false,
    windowsHide: true,
    detached: !isWindows,
  });
  if (!isWindows) {
    child.once('spawn', () => {
      if (child.pid !== undefined) {
        installExitHook();
        liveGroups.add(child.pid);
        observer?.started(child.pid, command);
      }
    });
  }
  return child;
}

/** Sends `signal` to every process in the group; false when the group no longer exists. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * True while any process (the leader or a descendant that kept the group) is still running in the group.
 * On Linux, zombies do not count: orphaned grandchildren are reaped by PID 1, which in containers can
 * take a while or never happen, yet they are already dead.
 */
export function groupAlive(pgid: number): boolean {
  if (!signalGroup(pgid, 0)) return false;
  if (process.platform !== 'linux') return true;
  return hasLiveMemberInProc(pgid);
}

function hasLiveMemberInProc(pgid: number): boolean {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (entry.charCodeAt(0) < 48 || entry.charCodeAt(0) > 57) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // the process ended while we looked
    }
    // Fields after the command name (which may contain spaces and parentheses): state ppid pgrp ...
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') return true;
  }
  return false;
}

export interface EndGroupOptions {
  /** Time between SIGTERM and SIGKILL. */
  graceMs?: number;
  /** How often to look whether the group is gone. */
  pollMs?: number;
}

/**
 * Ends a process group: SIGTERM to all of it, SIGKILL to whatever is left after the grace period.
 * Resolves once no process of the group is left (or, on Windows, once the child is killed).
 */
export async function endProcessGroup(
  child: ChildProcessWithoutNullStreams,
  options: EndGroupOptions = {},
): Promise<void> {
  const pgid = child.pid;
  if (pgid === undefined) return;
  const graceMs = options.graceMs ?? 2_000;
  const pollMs = options.pollMs ?? 25;
  if (isWindows) {
    if (child.exitCode === null && child.signalCode === null) child.kill();
    return;
  }
  if (!groupAlive(pgid)) {
    liveGroups.delete(pgid);
    observer?.ended(pgid);
    return;
  }
  signalGroup(pgid, 'SIGTERM');
  await whileAlive(pgid, graceMs, pollMs);
  if (groupAlive(pgid)) {
    signalGroup(pgid, 'SIGKILL');
    // SIGKILL cannot be ignored; this only waits for the kernel to tear the processes down.
    await whileAlive(pgid, 5_000, pollMs);
  }
  liveGroups.delete(pgid);
  observer?.ended(pgid);
}

/** Waits while the group lives, at most `ms`. Looks again soon at first (most servers end within a few
 * ms of a signal, and shutdown waits on this), then every `pollMs`. */
async function whileAlive(pgid: number, ms: number, pollMs: number): Promise<void> {
  const deadline = Date.now() + ms;
  let wait = 1;
  while (groupAlive(pgid) && Date.now() < deadline) {
    await delay(wait);
    wait = Math.min(wait * 2, pollMs);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
