// A cold host never makes a first call slower (issue 35): the real Pi, a model that answers at once
// (ToolSearch for `echo`, then the call, then its answer), one stdio server (the test fixture). The
// call turn (from the model's answer naming the call to the request carrying its result; the
// server's own start included), and the search and call turns together (from the model's answer naming
// ToolSearch to the request carrying the call's result: a session that answers the search sooner leaves
// less of a server's start to the call turn, so the call turn alone can favour the slower search) with:
//   inSession  `sharedHost: false`: the server starts in the session at the search, as before the host;
//   hostCold   the shared host, not running when Pi starts (each run stops it first); from the
//              installed build's startup snapshot once the warm-up round's host has made it;
//   hostColdPlain  the same without the startup snapshot (none is made: src/host/startup-snapshot.ts);
//   hostWarm   the shared host and its server left running by the run before;
//   builtin    Pi's built-in MCP (exposure `deferred`, its `tool_search`), no extension.
// Runs go round-robin (one warm-up round, not counted), all in one run of this script:
//   npx tsx bench/cold-host.ts [--runs=6] [--variants=inSession,hostCold,hostWarm,builtin] [--think=ms]
// `--think` has the model take that long before each answer (default 0: it answers at once).
// BENCH_ENTRY=source loads the checkout's sources instead of the built bundle (bench/support/installed.ts).

import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { snapshotDir, snapshotFiles } from '../src/host/startup-snapshot.ts';
import { type AgentDir, createAgentDir } from '../test/e2e/harness/agent-dir.ts';
import { type ChatRequestBody, toolResultMessages } from '../test/e2e/harness/fake-llm.ts';
import { stdioFixture } from '../test/fixtures/servers/spawn.ts';
import { stopHostsUnder } from '../test/support/hosts.ts';
import { extensionEntry, installedBuild } from './support/installed.ts';
import { runPiTimed, type Step } from './support/pi-run.ts';
import { median, round } from './support/stats.ts';

const VARIANTS = ['inSession', 'hostCold', 'hostColdPlain', 'hostWarm', 'builtin'] as const;
type Variant = (typeof VARIANTS)[number];
const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const RUNS = Number(arg('runs') ?? 6);
const THINK_MS = Number(arg('think') ?? 0);
const chosen = (arg('variants')?.split(',') ?? VARIANTS) as Variant[];
const ECHO_TEXT = 'cold host 42';

function config(variant: Variant) {
  return {
    ...(variant === 'inSession' ? { settings: { sharedHost: false } } : {}),
    mcpServers: {
      fixture: { ...stdioFixture(), ...(variant === 'builtin' ? { exposure: 'deferred' } : {}) },
    },
  };
}

/** No startup snapshot for this agent dir: its files gone, and marked as failing so no host makes one. */
function withoutSnapshot(agentDir: string): void {
  const files = snapshotFiles(agentDir, installedBuild());
  rmSync(snapshotDir(agentDir), { recursive: true, force: true });
  mkdirSync(snapshotDir(agentDir), { recursive: true, mode: 0o700 });
  writeFileSync(files.failed, 'bench\nbench\n');
}

const toolNames = (body: ChatRequestBody) => (body.tools ?? []).map((t) => t.function.name);

function script(variant: Variant, problems: string[]): Step {
  const answer = scriptedAnswer(variant, problems);
  return (body, index) => {
    const step = answer(body, index);
    return THINK_MS > 0 ? new Promise((resolve) => setTimeout(() => resolve(step), THINK_MS)) : step;
  };
}

function scriptedAnswer(variant: Variant, problems: string[]): Step {
  return (body, index) => {
    if (index === 0) {
      const name = variant === 'builtin' ? 'tool_search' : 'ToolSearch';
      return { toolCalls: [{ id: 'call_search', name, arguments: { query: 'echo' } }] };
    }
    if (index === 1) {
      const name = toolNames(body).find((n) => n.includes('fixture') && n.endsWith('echo'));
      if (!name) {
        problems.push(`no echo tool after the search (tools: ${toolNames(body).join(', ')})`);
        return { text: 'none' };
      }
      return { toolCalls: [{ id: 'call_echo', name, arguments: { text: ECHO_TEXT } }] };
    }
    return { text: 'The echo tool answered.' };
  };
}

const dirs = new Map<Variant, AgentDir>();
const samples = new Map<Variant, { call: number[]; search: number[]; both: number[] }>();
const failures: string[] = [];
try {
  for (const v of chosen) {
    const dir = createAgentDir({ llmBaseUrl: 'http://127.0.0.1:9/v1' });
    writeFileSync(join(dir.agentDir, 'mcp.json'), JSON.stringify(config(v), null, 2));
    dirs.set(v, dir);
    samples.set(v, { call: [], search: [], both: [] });
  }
  for (let r = 0; r <= RUNS; r++) {
    for (const v of chosen.map((_, i) => chosen[(i + r) % chosen.length]!)) {
      const dir = dirs.get(v)!;
      if (v === 'hostCold' || v === 'hostColdPlain') await stopHostsUnder(dir.root);
      if (v === 'hostColdPlain') withoutSnapshot(dir.agentDir);
      const problems: string[] = [];
      const run = await runPiTimed({
        dir,
        extensions: v === 'builtin' ? [] : [extensionEntry()],
        prompt: 'Find the echo tool, call it, and tell me what it said.',
        step: script(v, problems),
        timeoutMs: 120_000,
      });
      const echoed = toolResultMessages(run.bodies[2] ?? { model: '', messages: [] }).some((m) =>
        m.content.includes(ECHO_TEXT),
      );
      if (run.code !== 0 || run.bodies.length !== 3 || !echoed || problems.length > 0) {
        failures.push(
          `${v} round ${r}: exit ${run.code}, ${run.bodies.length} requests; ${problems.join('; ')}`,
        );
        continue;
      }
      if (r === 0) continue; // warm-up: fills the metadata cache and the start record
      const s = samples.get(v)!;
      s.call.push(round(run.arrivals[2]! - run.answered[1]!, 1));
      s.search.push(round(run.arrivals[1]! - run.answered[0]!, 1));
      // The two turns, without the model's own time between them (its thinking, when it thinks).
      s.both.push(round(run.arrivals[2]! - run.answered[1]! + run.arrivals[1]! - run.answered[0]!, 1));
    }
  }
} finally {
  for (const dir of dirs.values()) {
    await stopHostsUnder(dir.root);
    dir.cleanup();
  }
}
console.log(
  `${RUNS} runs per variant, round-robin, model ${THINK_MS > 0 ? `thinks ${THINK_MS} ms before each answer` : 'answers at once'}`,
);
for (const v of chosen) {
  const s = samples.get(v)!;
  console.log(
    `${v.padEnd(10)} call turn median ${round(median(s.call), 1)} ms [${s.call.join(', ')}]; search turn median ${round(median(s.search), 1)} ms; search + call median ${round(median(s.both), 1)} ms`,
  );
}
for (const f of failures) console.log(`failed: ${f}`);
