// Ends the server process groups of hosts that are no longer running (./process-records.ts): run by
// each host as it starts, and by a session whose line to its host dropped. A group is signalled only
// while it is provably the one recorded: its leader still runs with the recorded start time (then the
// whole group: SIGTERM, then SIGKILL after ORPHAN_GRACE_MS), or, the leader gone, each remaining
// member that started no earlier than it (while a member lives, the kernel gives its group id to no
// new process). A host that is alive (its pid with its start time) is never touched, whatever its
// version, and neither is a record from another boot.

import { rmSync } from 'node:fs';
import { type GroupRecord, type HostRecord, readRecords, recordsDir } from './process-records.ts';
import { type ProcessTable, processTable, startedNotBefore } from './process-table.ts';

/** How long a server left by a dead host gets between SIGTERM and SIGKILL. */
export const ORPHAN_GRACE_MS = 3_000;
const POLL_MS = 50;

export interface OrphansEnded {
  /** The dead hosts whose records were cleared. */
  hosts: number[];
  /** The groups that were still running and were ended. */
  groups: Array<GroupRecord & { host: number; killed: boolean }>;
}

export interface EndOrphansOptions {
  graceMs?: number;
  table?: ProcessTable;
}

/** Ends what the dead hosts of this agent dir left running, and clears their records. */
export async function endOrphans(agentDir: string, options: EndOrphansOptions = {}): Promise<OrphansEnded> {
  const table = options.table ?? processTable();
  const graceMs = options.graceMs ?? ORPHAN_GRACE_MS;
  const boot = table.bootId();
  const ended: OrphansEnded = { hosts: [], groups: [] };
  const targets: Array<{ group: GroupRecord; host: number }> = [];
  const files: string[] = [];
  for (const { file, record } of readRecords(recordsDir(agentDir))) {
    if (hostAlive(record, table)) continue;
    files.push(file);
    ended.hosts.push(record.host.pid);
    // Start times of another boot name nobody alive now.
    if (record.boot !== undefined && boot !== undefined && record.boot !== boot) continue;
    for (const group of record.groups)
      if (signalRecorded(group, 'SIGTERM', table)) targets.push({ group, host: record.host.pid });
  }
  const deadline = Date.now() + graceMs;
  let left = targets;
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS).unref());
    left = left.filter(({ group }) => pidsOf(group, table).length > 0);
  }
  for (const { group } of left) signalRecorded(group, 'SIGKILL', table);
  for (const { group, host } of targets)
    ended.groups.push({ ...group, host, killed: left.some((t) => t.group === group) });
  for (const file of files) rmSync(file, { force: true });
  return ended;
}

/** A host runs while its pid runs with the start time it recorded. */
function hostAlive(record: HostRecord, table: ProcessTable): boolean {
  if (record.host.pid === process.pid) return true;
  return table.startOf(record.host.pid) === record.host.start;
}

/** The group's processes that are provably the recorded ones (empty once it is gone). */
function pidsOf(group: GroupRecord, table: ProcessTable): number[] {
  const leader = table.startOf(group.pgid);
  if (leader !== undefined) return leader === group.start ? [group.pgid] : [];
  return table
    .membersOf(group.pgid)
    .filter((member) => startedNotBefore(member.start, group.start))
    .map((member) => member.pid);
}

/** Signals the recorded group (or its remaining members); false when nothing of it runs. */
function signalRecorded(group: GroupRecord, signal: NodeJS.Signals, table: ProcessTable): boolean {
  const pids = pidsOf(group, table);
  if (pids.length === 0) return false;
  // The leader is the recorded one: the whole group (what it spawned too).
  const targets = pids[0] === group.pgid ? [-group.pgid] : pids;
  for (const target of targets) {
    try {
      process.kill(target, signal);
    } catch {}
  }
  return true;
}

/** How long a session whose line dropped watches for its host's process to be gone. */
const GONE_WATCH_MS = 2_000;

/**
 * A session's line to its host closed: if the host is gone (killed, crashed), its servers are ended
 * now rather than at the next host's start. The kernel closes a killed process's sockets a moment
 * before the process is gone, so it looks a few times; a host that is only closing the line (it
 * stops, closing its servers itself) stays and is left alone.
 */
export function endOrphansIfGone(agentDir: string, hostPid: number): void {
  const table = processTable();
  const deadline = Date.now() + GONE_WATCH_MS;
  const look = () => {
    if (table.startOf(hostPid) === undefined) return void endOrphans(agentDir).catch(() => undefined);
    if (Date.now() < deadline) setTimeout(look, POLL_MS).unref();
  };
  look();
}
