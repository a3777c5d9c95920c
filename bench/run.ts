// `npm run bench` (package.json: "bench": "tsx bench/run.ts"): every benchmark of issue 8 in one run,
// each figure next to a reference measured in the same run. Writes bench/results/results.json,
// bench/results/REPORT.md and the SVG charts beside it; the search eval's own output goes to
// bench/results/raw/ (git-ignored).
//   npx tsx bench/run.ts [--only=calls,startup,search,tokens,memory,pi,reliability,quick,shared] [--runs=N]
//                        [--load-ms=N]
//                        [--entry=source]
// Never part of `npm test`. Needs the npm registry on a fresh clone (Pi, the five servers, pi-mcp-adapter).

import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { PI_VERSIONS } from '../scripts/pi-paths.mjs';
import { ensurePi } from '../test/e2e/harness/ensure-pi.ts';
import { runCallOverhead } from './call-overhead.ts';
import { runFiveSessions } from './five-sessions.ts';
import { actorHeap, npxMemory } from './memory.ts';
import { runQuick } from './quick.ts';
import { runReliability } from './reliability.ts';
import { writeReport } from './report.ts';
import type { BenchResults } from './results.ts';
import { runSearchEval } from './search.ts';
import { DEFAULT_PI_RUNS, runColdStart, runSideBySide, THINK_MS, VARIANTS } from './side-by-side.ts';
import { runStartup } from './startup.ts';
import { FIVE_SERVERS, readCatalogs, syntheticCatalogs } from './support/catalogs.ts';
import { ADAPTER_SPEC, NPX_SPEC, provisionBench, REPO_ROOT, SERVER_PACKAGES } from './support/provision.ts';
import { evaluateTargets } from './targets.ts';
import { measure } from './tokens.ts';

const RESULTS_DIR = join(REPO_ROOT, 'bench', 'results');
const argv = process.argv.slice(2);
const onlyArg = argv.find((a) => a.startsWith('--only='));
const only = onlyArg ? new Set(onlyArg.slice('--only='.length).split(',')) : undefined;
const runsArg = argv.find((a) => a.startsWith('--runs='));
// Real-Pi medians: nine runs keep one slow or fast run from moving them on a noisy 2-core machine.
const PI_RUNS = runsArg ? Number(runsArg.slice('--runs='.length)) : DEFAULT_PI_RUNS;
const wanted = (name: string) => !only || only.has(name);
// Real-Pi runs load the installed bundle unless `--entry=source` (bench/support/installed.ts).
if (argv.includes('--entry=source')) process.env.BENCH_ENTRY = 'source';
const loadMsArg = argv.find((a) => a.startsWith('--load-ms='));
const LOAD_MS = loadMsArg ? Number(loadMsArg.slice('--load-ms='.length)) : 60_000;

const log = (msg: string) =>
  process.stdout.write(`[bench ${((performance.now() - t0) / 1000).toFixed(1)}s] ${msg}\n`);
const t0 = performance.now();

async function main(): Promise<void> {
  // Child-process waits in the product use unref'd timers (so Pi can exit); keep this script alive meanwhile.
  const keepAlive = setInterval(() => {}, 60_000);
  mkdirSync(RESULTS_DIR, { recursive: true });
  const results: BenchResults = {
    meta: {
      date: new Date().toISOString(),
      command: `npx tsx bench/run.ts${argv.length ? ` ${argv.join(' ')}` : ''}`,
      node: process.version,
      pi: PI_VERSIONS.pi,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? 'unknown',
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      loadAverageAtStart: loadavg().map((x) => Math.round(x * 100) / 100),
      piRuns: PI_RUNS,
      packages: { servers: SERVER_PACKAGES, adapter: ADAPTER_SPEC, npx: NPX_SPEC },
      sectionMs: {},
      wallMs: 0,
    },
    errors: {},
  };
  const section = async <T>(
    name: string,
    key: keyof BenchResults['meta']['sectionMs'] & string,
    fn: () => Promise<T>,
  ): Promise<T | undefined> => {
    if (!wanted(key)) return undefined;
    log(`${name}…`);
    const started = performance.now();
    try {
      return await fn();
    } catch (error) {
      results.errors[key] =
        error instanceof Error ? `${error.message}\n${error.stack ?? ''}`.slice(0, 4000) : String(error);
      log(`${name} FAILED: ${String(error).slice(0, 300)}`);
      return undefined;
    } finally {
      results.meta.sectionMs[key] =
        (results.meta.sectionMs[key] ?? 0) + Math.round(performance.now() - started);
      log(`${name} done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    }
  };

  const needsPi = wanted('startup') || wanted('pi') || wanted('quick') || wanted('shared');
  await section('provisioning (Pi, servers, pi-mcp-adapter, npx cache)', 'provision', async () => {
    const [bench] = await Promise.all([provisionBench(), needsPi ? ensurePi() : Promise.resolve(undefined)]);
    for (const [part, message] of Object.entries(bench.failures))
      results.errors[`provision.${part}`] = message;
  });

  results.callOverhead = await section('1. call overhead', 'calls', runCallOverhead);
  results.startup = await section('2. startup', 'startup', () =>
    runStartup(
      {
        five: { catalogs: readCatalogs(FIVE_SERVERS), iterations: 20, warmup: 3 },
        all23: { catalogs: readCatalogs(), iterations: 20, warmup: 3 },
        synthetic100x50: { catalogs: syntheticCatalogs(100, 50), iterations: 3, warmup: 1 },
      },
      // Short runs (one answer): four times as many, since these medians decide the first-request target.
      {
        five: { catalogs: readCatalogs(FIVE_SERVERS), runs: PI_RUNS * 4 },
        all23: { catalogs: readCatalogs(), runs: PI_RUNS * 4 },
      },
    ),
  );
  results.search = await section('3. ToolSearch (bench/search/eval.ts)', 'search', runSearchEval);
  results.tokens = await section('4. context cost', 'tokens', async () => ({
    five: measure(readCatalogs(FIVE_SERVERS)),
    all23: measure(readCatalogs()),
    synthetic100x50: measure(syntheticCatalogs(100, 50)),
  }));
  results.memory = await section('5. memory', 'memory', async () => {
    const heap = await actorHeap(1_000);
    let npx: Awaited<ReturnType<typeof npxMemory>> | undefined;
    try {
      npx = await npxMemory(3);
    } catch (error) {
      results.errors['memory.npx'] = String(error);
    }
    return { heap, ...(npx ? { npx } : {}) };
  });
  results.sideBySide = await section('6. side by side in the real Pi', 'pi', () => runSideBySide(PI_RUNS));
  results.sideBySideThinking = await section('6b. side by side, the model thinks 1.5 s per turn', 'pi', () =>
    runSideBySide(PI_RUNS, VARIANTS, THINK_MS),
  );
  results.coldStart = await section('6c. first start after install (cold jiti cache)', 'pi', () =>
    runColdStart(PI_RUNS),
  );
  results.reliability = await section('7. reliability: churn and load', 'reliability', () =>
    runReliability(LOAD_MS),
  );
  results.quick = await section('8. misbehaving servers: slow, dropped, noisy, huge', 'quick', () =>
    runQuick(runsArg ? PI_RUNS : 3, log),
  );
  // Each round is three columns of five sessions, five turns each: three rounds unless --runs says.
  results.fiveSessions = await section('9. five sessions at once: the shared host', 'shared', () =>
    runFiveSessions(runsArg ? PI_RUNS : 3),
  );

  results.targets = evaluateTargets(results);
  results.meta.wallMs = Math.round(performance.now() - t0);
  writeFileSync(join(RESULTS_DIR, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  writeReport(results, RESULTS_DIR);
  clearInterval(keepAlive);
  log(
    `wrote bench/results/results.json and bench/results/REPORT.md in ${(results.meta.wallMs / 1000).toFixed(1)} s`,
  );
  for (const t of results.targets) log(`${t.met ? 'met   ' : 'MISSED'} ${t.target}: ${t.measured}`);
  if (Object.keys(results.errors).length) log(`errors in: ${Object.keys(results.errors).join(', ')}`);
}

main().catch((error) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
