// 8. Staying quick when servers misbehave (issue 29), in the real Pi with a scripted model:
//   slowList:   ToolSearch while the only server's tools/list takes 20 s (initialize answers at once);
//   droppedCall: a Streamable HTTP call whose SSE stream the server cuts before any event (requestTimeoutMs 20 s);
//   storm:      a tool call during which the server sends 200 tools/list_changed back to back;
//   flood:      a tool call during which the server sends 20,000 progress notifications;
//   huge:       ToolSearch `select:` of one tool of a 3,000-tool server (metadata cache warm).
// Each figure is the median of `runs` runs: the wall time from the model's call to Pi's next request, the
// CPU Pi's main thread spent meanwhile, Pi's peak RSS, and how many tools/list requests the server saw.
//   npx tsx bench/run.ts --only=quick --runs=3

import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type AgentDir, createAgentDir } from '../test/e2e/harness/agent-dir.ts';
import { messageText, toolResultMessages } from '../test/e2e/harness/fake-llm.ts';
import { fixtureArgs, startHttpFixture } from '../test/fixtures/servers/spawn.ts';
import { extensionEntry } from './support/installed.ts';
import { type PiRun, runPiTimed, type Step } from './support/pi-run.ts';
import { median, round } from './support/stats.ts';

export interface QuickFigure {
  /** From the model's tool call (request i answered) to Pi's next request, ms. */
  callToNextRequestMs: number;
  /** CPU of Pi's main thread over the same span, ms. */
  piCpuMs: number;
  /** CPU of Pi's main thread over the whole run (start to exit), ms. */
  piCpuRunMs: number;
  /** Peak RSS of Pi's process tree (Pi and the servers it started). */
  peakRssMb: number;
  /** Peak RSS of Pi's own process. */
  piPeakRssMb: number;
  /** tools/list requests the server saw during the run (storm). */
  listings?: number;
  /** What the model read back (first run), cut to 300 characters. */
  answer: string;
}

export interface QuickResult {
  runs: number;
  slowList?: QuickFigure;
  droppedCall?: QuickFigure;
  storm?: QuickFigure;
  flood?: QuickFigure;
  huge?: QuickFigure;
}

const SLOW_LIST_MS = 20_000;
const DROP_TIMEOUT_MS = 20_000;

type Scenario = {
  mcpServers: (dir: AgentDir, scratch: string) => Record<string, unknown>;
  /** The calls the model makes before answering, in order; the figure is for the last one. */
  calls: Array<{ name: string; arguments: Record<string, unknown> }>;
  before?: (scratch: string) => void;
  /** A run that fills the metadata cache first (not measured). */
  warm?: boolean;
  /** The model thinks this long before each answer (work Pi does after a call is then in the run). */
  thinkMs?: number;
};

function stdio(flags: string[], extra: Record<string, unknown> = {}) {
  return { command: process.execPath, args: [...fixtureArgs('stdio-server'), ...flags], ...extra };
}

function scriptOf(calls: Scenario['calls']): Step {
  return (_body, index) => {
    const call = calls[index];
    if (!call) return { text: 'done' };
    return { toolCalls: [{ id: `call_${index}`, name: call.name, arguments: call.arguments }] };
  };
}

async function measure(
  label: string,
  scenario: Scenario,
  runs: number,
  log: (m: string) => void,
): Promise<QuickFigure> {
  const figures: Array<Omit<QuickFigure, 'answer'>> = [];
  let answer = '';
  for (let run = 0; run < runs; run++) {
    const dir = createAgentDir({ llmBaseUrl: 'http://127.0.0.1:9/v1' });
    const scratch = dir.root;
    try {
      writeFileSync(
        join(dir.agentDir, 'mcp.json'),
        JSON.stringify({ mcpServers: scenario.mcpServers(dir, scratch) }),
      );
      if (scenario.warm)
        await runPiTimed({
          dir,
          extensions: [extensionEntry()],
          prompt: 'warm',
          step: () => ({ text: 'ok' }),
        });
      scenario.before?.(scratch);
      const result: PiRun = await runPiTimed({
        dir,
        extensions: [extensionEntry()],
        prompt: label,
        step: scriptOf(scenario.calls),
        timeoutMs: 120_000,
        ...(scenario.thinkMs ? { thinkMs: scenario.thinkMs } : {}),
      });
      const last = scenario.calls.length - 1;
      const from = result.answered[last] ?? Number.NaN;
      const to = result.arrivals[last + 1] ?? Number.NaN;
      const cpuFrom = result.cpuAtArrivalMs[last] ?? Number.NaN;
      const cpuTo = result.cpuAtArrivalMs[last + 1] ?? Number.NaN;
      const lists = join(scratch, 'lists.txt');
      figures.push({
        callToNextRequestMs: to - from,
        piCpuMs: cpuTo - cpuFrom,
        piCpuRunMs: result.cpuAtExitMs,
        peakRssMb: result.peakRssMb,
        piPeakRssMb: result.piPeakRssMb,
        ...(existsSync(lists)
          ? { listings: readFileSync(lists, 'utf8').split('\n').filter(Boolean).length }
          : {}),
      });
      if (run === 0) {
        const body = result.bodies[last + 1];
        answer = body
          ? messageText(toolResultMessages(body).at(-1)?.content ?? '').slice(0, 300)
          : '(no request)';
        if (result.timedOut) answer = `(Pi timed out) ${answer}`;
      }
    } finally {
      dir.cleanup();
    }
  }
  const pick = (key: keyof Omit<QuickFigure, 'answer'>) => {
    const values = figures.map((f) => f[key]).filter((v): v is number => typeof v === 'number');
    return values.length ? round(median(values)) : undefined;
  };
  const listings = pick('listings');
  const figure = {
    callToNextRequestMs: pick('callToNextRequestMs') ?? Number.NaN,
    piCpuMs: pick('piCpuMs') ?? Number.NaN,
    piCpuRunMs: pick('piCpuRunMs') ?? Number.NaN,
    peakRssMb: pick('peakRssMb') ?? Number.NaN,
    piPeakRssMb: pick('piPeakRssMb') ?? Number.NaN,
    ...(listings === undefined ? {} : { listings }),
    answer,
  };
  log(`${label}: ${JSON.stringify(figure)}`);
  return figure;
}

export async function runQuick(runs = 3, log: (m: string) => void = () => {}): Promise<QuickResult> {
  const result: QuickResult = { runs };
  const waitFile = (scratch: string) => join(scratch, 'list-wait');
  let releaser: ReturnType<typeof setTimeout> | undefined;
  log('slow tools/list (20 s)');
  result.slowList = await measure(
    'slow list',
    {
      mcpServers: (_dir, scratch) => ({
        slow: stdio(['--name', 'slow', '--list-wait-while', waitFile(scratch)], { startupTimeoutMs: 60_000 }),
      }),
      calls: [{ name: 'ToolSearch', arguments: { query: 'echo' } }],
      before: (scratch) => {
        writeFileSync(waitFile(scratch), '');
        releaser = setTimeout(() => rmSync(waitFile(scratch), { force: true }), SLOW_LIST_MS);
      },
    },
    runs,
    log,
  );
  clearTimeout(releaser);

  log('dropped Streamable HTTP call');
  const http = await startHttpFixture(['--unruly-tools']);
  try {
    result.droppedCall = await measure(
      'dropped call',
      {
        mcpServers: () => ({ web: { url: http.url, requestTimeoutMs: DROP_TIMEOUT_MS } }),
        calls: [
          { name: 'ToolSearch', arguments: { query: 'select:web__cut_stream' } },
          { name: 'web__cut_stream', arguments: {} },
        ],
      },
      runs,
      log,
    );
  } finally {
    await http.stop();
  }

  log('list_changed storm (200)');
  result.storm = await measure(
    'storm',
    {
      mcpServers: (_dir, scratch) => ({
        fx: stdio([
          '--name',
          'fx',
          '--unruly-tools',
          '--list-changed',
          '--lists-file',
          join(scratch, 'lists.txt'),
        ]),
      }),
      calls: [
        { name: 'ToolSearch', arguments: { query: 'select:fx__storm,fx__storm_target' } },
        { name: 'fx__storm', arguments: { count: 200 } },
      ],
      // The refreshes a storm causes run after the call answered: let them finish within the run.
      thinkMs: 1_500,
    },
    runs,
    log,
  );

  log('progress flood (20,000)');
  result.flood = await measure(
    'flood',
    {
      mcpServers: () => ({ fx: stdio(['--name', 'fx', '--unruly-tools']) }),
      calls: [
        { name: 'ToolSearch', arguments: { query: 'select:fx__flood' } },
        { name: 'fx__flood', arguments: { count: 20_000 } },
      ],
    },
    runs,
    log,
  );

  log('one tool of 3,000');
  result.huge = await measure(
    'huge',
    {
      mcpServers: () => ({ big: stdio(['--name', 'big', '--many-tools', '3000']) }),
      calls: [{ name: 'ToolSearch', arguments: { query: 'select:big__gen_1234' } }],
      warm: true,
    },
    runs,
    log,
  );
  return result;
}
