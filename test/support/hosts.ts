// The shared hosts a test caused. With `settings.sharedHost` on by default, a Pi session or CLI call
// on a temp agent dir starts a detached host that outlives it; these find such hosts by the agent dir
// they serve and stop them by pid. (A host also stops by itself once its agent dir is deleted.)

import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { sep } from 'node:path';

export interface HostProcess {
  pid: number;
  /** The agent dir it serves (its PI_CODING_AGENT_DIR). */
  agentDir: string;
}

/**
 * A process is a host by its command line: `… pi-mcp-actors.mjs host serve` (or `… host-snapshot.cjs host
 * serve` from the startup snapshot), or its title once running.
 */
export function isHostCommand(cmdline: string[]): boolean {
  if (cmdline[0]?.startsWith('pi-mcp-actors-host')) return true;
  const at = cmdline.findIndex(
    (word) => word.endsWith('pi-mcp-actors.mjs') || word.endsWith('host-snapshot.cjs'),
  );
  return at >= 0 && cmdline[at + 1] === 'host' && cmdline[at + 2] === 'serve';
}

function agentDirOf(pid: number): string | undefined {
  try {
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    return environ.find((v) => v.startsWith('PI_CODING_AGENT_DIR='))?.slice('PI_CODING_AGENT_DIR='.length);
  } catch {
    return undefined;
  }
}

function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/** Running hosts (of this user, from /proc) whose agent dir is `folder` or inside it. */
export function hostsUnder(folder: string): HostProcess[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return []; // no /proc: nothing to find (the hosts still stop once their agent dir is deleted)
  }
  const found: HostProcess[] = [];
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    let cmdline: string[];
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    if (!isHostCommand(cmdline) || isZombie(pid)) continue;
    const agentDir = agentDirOf(pid);
    if (
      agentDir &&
      (agentDir === folder || agentDir.startsWith(folder.endsWith(sep) ? folder : folder + sep))
    )
      found.push({ pid, agentDir });
  }
  return found;
}

/**
 * Stops every host serving `folder` (an agent dir, or a temp root holding some): SIGTERM by pid (it
 * closes its servers), SIGKILL after `graceMs`. Resolves with the hosts that were running.
 */
export async function stopHostsUnder(folder: string, graceMs = 5_000): Promise<HostProcess[]> {
  const hosts = hostsUnder(folder);
  for (const { pid } of hosts) signal(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (hosts.some(({ pid }) => !isZombie(pid)) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50));
  for (const { pid } of hosts) if (!isZombie(pid)) signal(pid, 'SIGKILL');
  return hosts;
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}

/** A test's temp root removed, after stopping the shared hosts its agent dirs started. */
export async function removeTempRoot(root: string): Promise<void> {
  await stopHostsUnder(root);
  rmSync(root, { recursive: true, force: true });
}
