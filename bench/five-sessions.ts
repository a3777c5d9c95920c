// 9. Five real Pi 1.5.2 sessions at once in one project with the five bench servers (issue 26's bar):
// how many server processes run and their total RSS, with Pi's built-in MCP (every session starts
// every server at launch), with ours running the servers in each session (today), and with ours
// sharing them through the per-user host (`settings.sharedHost`, `share: "project"`).
// Each session searches for and calls one tool of every server, then holds its last answer until all
// five have done so; the process trees are read then. Sessions start one after another, so sessions
// 2–5 call servers session 1 already warmed: their echo call turn (as in 6b, the model thinks 1.5 s)
// is compared with the built-in's, which pre-started its servers.
// A build without the shared host (settings.sharedHost unknown, or no host process ran) reports that
// column as not available.

import { readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SETTINGS_DEFAULTS } from '../src/config/defaults.ts';
import { type AgentDir, createAgentDir } from '../test/e2e/harness/agent-dir.ts';
import { toolResultMessages } from '../test/e2e/harness/fake-llm.ts';
import { processTree, type TreeProcess } from '../test/fixtures/cache/process-tree.ts';
import {
  declaredTool,
  ECHO_TEXT,
  endLeftovers,
  scriptFor,
  searchCall,
  serverConfig,
  THINK_MS,
} from './side-by-side.ts';
import { extensionEntry } from './support/installed.ts';
import { type PiRun, runPiTimed, type Step } from './support/pi-run.ts';
import { median, round } from './support/stats.ts';

export const SESSIONS = 5;
export const FIVE_VARIANTS = ['builtin', 'session', 'shared', 'default'] as const;
export type FiveVariant = (typeof FIVE_VARIANTS)[number];

export const FIVE_LABELS: Record<FiveVariant, string> = {
  builtin: 'Pi built-in MCP',
  session: 'pi-mcp-actors, servers in each session (sharedHost: false)',
  shared: 'pi-mcp-actors, shared host (share: project for all five)',
  default: 'pi-mcp-actors, default settings (shared host; playwright per session)',
};

/** After the echo call (turns 0–1, as in section 6), one tool of each other server. */
const OTHER_CALLS = [
  { server: 'filesystem', tool: 'list_allowed_directories', query: 'list allowed directories', args: {} },
  { server: 'memory', tool: 'read_graph', query: 'read graph', args: {} },
  // These two fail at once here (no network, no browser installed): the server still runs.
  { server: 'github', tool: 'search_repositories', query: 'search repositories', args: { query: 'pi' } },
  { server: 'playwright', tool: 'browser_close', query: 'close browser', args: {} },
];
/** Requests of a complete session: search, echo, four searches, four calls, answer. */
const REQUESTS = 5;

/** What runs while all five sessions are alive. */
export interface Snapshot {
  /** Processes below the five Pi processes and the host, the host itself not counted. */
  serverProcesses: number;
  /** Their RSS, plus the host's own with the shared host. */
  serversRssMb: number;
  hostRssMb?: number;
  /** The five Pi processes themselves. */
  piRssMb: number;
}

export interface FiveVariantResult {
  label: string;
  /** Why the column is empty (a build without the shared host). */
  notAvailable?: string;
  rounds: Array<Snapshot & { callTurnMs: number[] }>;
  failures: string[];
  median?: Snapshot & {
    /** Session 1's echo call turn (a server nobody had started, unless the variant starts at launch). */
    firstCallTurnMs: number;
    /** Sessions 2–5: a server session 1 warmed (the shared host), or started at launch (the built-in). */
    warmCallTurnMs: number;
  };
}

export interface FiveSessionsResult {
  sessions: number;
  runs: number;
  thinkMs: number;
  variants: Partial<Record<FiveVariant, FiveVariantResult>>;
  /** Server processes still running after Pi exited (without the shared host, which keeps them by design). */
  leftoverProcesses: number;
}

const mb = (kb: number) => round(kb / 1024, 1);
const usesHost = (variant: FiveVariant) => variant === 'shared' || variant === 'default';
const rssKb = (ps: TreeProcess[]) => ps.reduce((n, p) => n + p.rssKb, 0);

function configFor(dir: AgentDir, variant: FiveVariant) {
  if (variant === 'builtin') return serverConfig(dir, 'builtin');
  const { mcpServers } = serverConfig(dir, 'ours');
  if (variant === 'session') return { settings: { sharedHost: false }, mcpServers };
  // The default: the shared host, and each server's default share (playwright's browser per session).
  if (variant === 'default') return { mcpServers };
  return {
    settings: { sharedHost: true },
    mcpServers: Object.fromEntries(
      Object.entries(mcpServers).map(([name, entry]) => [name, { ...entry, share: 'project' }]),
    ),
  };
}

/** The host is started detached with the agent dir as its working folder (src/adapters/host/start-host.ts). */
function hostPid(agentDir: string): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readlinkSync(`/proc/${entry}/cwd`) !== agentDir) continue;
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('host')) return Number(entry);
    } catch {
      // gone, or not ours
    }
  }
  return undefined;
}

function endHost(agentDir: string): void {
  const pid = hostPid(agentDir);
  if (pid === undefined) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone
  }
}

/** Every process once: the host's tree first (its servers), then each Pi's (its own servers). */
function snapshot(piPids: number[], host: number | undefined): Snapshot {
  const hostTree = host === undefined ? [] : processTree(host);
  const seen = new Set(hostTree.map((p) => p.pid));
  const servers = hostTree.filter((p) => p.pid !== host);
  let piKb = 0;
  for (const pid of piPids) {
    for (const p of processTree(pid)) {
      if (seen.has(p.pid)) continue;
      seen.add(p.pid);
      if (p.pid === pid) piKb += p.rssKb;
      else servers.push(p);
    }
  }
  const hostKb = hostTree.find((p) => p.pid === host)?.rssKb;
  return {
    serverProcesses: servers.length,
    serversRssMb: mb(rssKb(servers) + (hostKb ?? 0)),
    ...(hostKb !== undefined ? { hostRssMb: mb(hostKb) } : {}),
    piRssMb: mb(piKb),
  };
}

/** Section 6's script (search, call echo), then a call to each other server; the last answer waits for `hold`. */
function fiveServerScript(variant: FiveVariant, problems: string[], hold: () => Promise<void>): Step {
  const kind = variant === 'builtin' ? 'builtin' : 'ours';
  const first = scriptFor(kind, problems);
  return async (body, index) => {
    if (index < 2) return first(body, index);
    if (index === 2)
      return { toolCalls: OTHER_CALLS.map((c, i) => searchCall(kind, `call_search_${i}`, c.query)) };
    if (index === 3) {
      const calls = OTHER_CALLS.flatMap((c) => {
        const name = declaredTool(body, c.server, c.tool);
        if (!name) problems.push(`${variant}: ${c.server} ${c.tool} not declared after its search`);
        return name ? [{ id: `call_${c.server}`, name, arguments: c.args }] : [];
      });
      if (calls.length) return { toolCalls: calls };
    }
    await hold();
    return { text: 'Every server answered.' };
  };
}

function completed(run: PiRun, problems: string[]): string | undefined {
  const last = run.bodies[REQUESTS - 1];
  const results = last ? toolResultMessages(last) : [];
  const echoed = results.some((m) => m.content.includes(ECHO_TEXT));
  const called = OTHER_CALLS.every((c) => results.some((m) => m.toolCallId === `call_${c.server}`));
  if (run.code === 0 && run.bodies.length === REQUESTS && echoed && called && !problems.length)
    return undefined;
  return `exit ${run.code}${run.timedOut ? ' (timed out)' : ''}, ${run.bodies.length} requests, echoed=${echoed}, all called=${called}; ${problems.join('; ')} ${run.stderr.slice(-300)}`.trim();
}

/**
 * `count` sessions of one project, each started once the one before has called every server (each run
 * also points the shared agent dir's models.json at its own fake model, read at Pi's start); the process
 * trees are read while all of them hold their last answer. Ends what the run left (the host too).
 */
async function runSessions(variant: FiveVariant, dir: AgentDir, count: number) {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const pids: number[] = [];
  const runs: Promise<PiRun>[] = [];
  const problems: string[][] = [];
  let seen: Snapshot | undefined;
  let host: number | undefined;
  try {
    for (let s = 0; s < count; s++) {
      let reached = () => {};
      const holding = new Promise<void>((resolve) => {
        reached = resolve;
      });
      problems[s] = [];
      const run = runPiTimed({
        dir,
        extensions: variant === 'builtin' ? [] : [extensionEntry()],
        prompt: 'Call a tool of every MCP server and tell me what they said.',
        step: fiveServerScript(variant, problems[s]!, () => {
          reached();
          return released;
        }),
        thinkMs: THINK_MS,
        timeoutMs: 300_000,
        // Five samplers reading /proc every 40 ms would load the machine they measure.
        sampleEveryMs: 1_000,
        onSpawn: (pid) => pids.push(pid),
      });
      runs.push(run);
      await Promise.race([holding, run]);
    }
    host = hostPid(dir.agentDir);
    seen = snapshot(pids, host);
  } finally {
    release();
  }
  const done = await Promise.all(runs);
  endHost(dir.agentDir);
  const leftovers = endLeftovers();
  const failures = done.flatMap((run, s) => {
    const why = completed(run, problems[s]!);
    return why ? [`session ${s + 1}: ${why}`] : [];
  });
  return {
    snapshot: seen!,
    hostRan: host !== undefined,
    callTurnMs: done.map((run) => round(run.arrivals[2]! - run.answered[1]!, 1)),
    failures,
    leftovers: usesHost(variant) ? 0 : leftovers,
  };
}

function medians(rounds: FiveVariantResult['rounds']): FiveVariantResult['median'] {
  const m = (xs: number[]) => round(median(xs), 1);
  const hosts = rounds.flatMap((r) => (r.hostRssMb === undefined ? [] : [r.hostRssMb]));
  return {
    serverProcesses: m(rounds.map((r) => r.serverProcesses)),
    serversRssMb: m(rounds.map((r) => r.serversRssMb)),
    ...(hosts.length ? { hostRssMb: m(hosts) } : {}),
    piRssMb: m(rounds.map((r) => r.piRssMb)),
    firstCallTurnMs: m(rounds.map((r) => r.callTurnMs[0]!)),
    warmCallTurnMs: m(rounds.flatMap((r) => r.callTurnMs.slice(1))),
  };
}

export async function runFiveSessions(runs: number): Promise<FiveSessionsResult> {
  const result: FiveSessionsResult = {
    sessions: SESSIONS,
    runs,
    thinkMs: THINK_MS,
    variants: {},
    leftoverProcesses: 0,
  };
  const dirs = new Map<FiveVariant, AgentDir>();
  for (const v of FIVE_VARIANTS) result.variants[v] = { label: FIVE_LABELS[v], rounds: [], failures: [] };
  if (!('sharedHost' in SETTINGS_DEFAULTS))
    result.variants.shared!.notAvailable =
      'settings.sharedHost is not known to this build (no shared host yet)';
  const usable = () => FIVE_VARIANTS.filter((v) => !result.variants[v]!.notAvailable);
  try {
    for (const v of usable()) {
      const dir = createAgentDir({ llmBaseUrl: 'http://127.0.0.1:9/v1' });
      writeFileSync(join(dir.agentDir, 'mcp.json'), JSON.stringify(configFor(dir, v), null, 2));
      dirs.set(v, dir);
    }
    // One session each first: fills the metadata caches and jiti's, as any later session finds them.
    for (const v of usable()) {
      const warm = await runSessions(v, dirs.get(v)!, 1);
      if (usesHost(v) && !warm.hostRan) result.variants[v]!.notAvailable = 'no shared host process ran';
    }
    for (let r = 0; r < runs; r++) {
      const order = usable();
      for (const v of order.map((_, i) => order[(i + r) % order.length]!)) {
        const c = result.variants[v]!;
        const run = await runSessions(v, dirs.get(v)!, SESSIONS);
        result.leftoverProcesses += run.leftovers;
        if (usesHost(v) && !run.hostRan) {
          c.notAvailable = 'no shared host process ran';
          continue;
        }
        c.failures.push(...run.failures.map((f) => `round ${r + 1}, ${f}`));
        if (!run.failures.length) c.rounds.push({ ...run.snapshot, callTurnMs: run.callTurnMs });
      }
    }
  } finally {
    for (const dir of dirs.values()) {
      endHost(dir.agentDir);
      dir.cleanup();
    }
    endLeftovers();
  }
  for (const v of FIVE_VARIANTS) {
    const c = result.variants[v]!;
    if (c.rounds.length) c.median = medians(c.rounds);
  }
  return result;
}
