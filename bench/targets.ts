// The targets of issue 8 (not test gates), checked against one run's results.

import type { BenchResults, TargetCheck } from './results.ts';
import { formatNumber as f, formatDeltaMs } from './support/svg.ts';

const missing = (target: string): TargetCheck => ({
  target,
  measured: 'not measured',
  reference: '—',
  met: null,
});

export function evaluateTargets(r: BenchResults): TargetCheck[] {
  const out: TargetCheck[] = [];
  const calls = r.callOverhead;
  if (calls) {
    out.push({
      target: 'call overhead ≤ 1.05× bare SDK at the median (sequential)',
      measured: `${f(calls.sequential.ours.medianMs)} ms = ${calls.sequential.medianRatio}×`,
      reference: `bare SDK ${f(calls.sequential.bare.medianMs)} ms`,
      met: calls.sequential.medianRatio <= 1.05,
    });
    out.push({
      target: 'call overhead ≤ 1.05× bare SDK at the median (32 in flight)',
      measured: `${f(calls.concurrent.ours.medianMs)} ms = ${calls.concurrent.medianRatio}×`,
      reference: `bare SDK ${f(calls.concurrent.bare.medianMs)} ms`,
      met: calls.concurrent.medianRatio <= 1.05,
    });
  } else out.push(missing('call overhead ≤ 1.05× bare SDK at the median'));

  const ours = r.search?.latency.ours;
  const at = (tools: number) => ours?.find((l) => (tools < 1000 ? l.tools < 1000 : l.tools >= 1000));
  const small = at(327);
  const big = at(10_000);
  const seed = r.search?.latency.seed;
  out.push(
    small
      ? {
          target: `search p50 < 1 ms at ${small.tools} tools`,
          measured: `${f(small.p50Ms)} ms`,
          reference: `seed ${f(seed?.[0]?.p50Ms ?? Number.NaN)} ms, BM25 ${f(r.search?.latency.bm25?.[0]?.p50Ms ?? Number.NaN)} ms`,
          met: small.p50Ms < 1,
        }
      : missing('search p50 < 1 ms at 327 tools'),
  );
  out.push(
    big
      ? {
          target: `search p50 < 10 ms at ${big.tools.toLocaleString('en-US')} tools`,
          measured: `${f(big.p50Ms)} ms`,
          reference: `seed ${f(seed?.[1]?.p50Ms ?? Number.NaN)} ms, BM25 ${f(r.search?.latency.bm25?.[1]?.p50Ms ?? Number.NaN)} ms`,
          met: big.p50Ms < 10,
        }
      : missing('search p50 < 10 ms at 10,000 tools'),
  );

  const s23 = r.startup?.inProcess.all23;
  out.push(
    s23
      ? {
          target: 'session_start < 20 ms for 23 cached servers',
          measured: `${f(s23.sessionStart.medianMs)} ms (+ ${f(s23.load.medianMs)} ms extension load)`,
          reference: `reading + parsing mcp.json and mcp-cache.json: ${f(s23.floor.medianMs)} ms`,
          met: s23.sessionStart.medianMs < 20,
        }
      : missing('session_start < 20 ms for 23 cached servers'),
  );

  const sbs = r.sideBySide?.variants;
  const o = sbs?.ours;
  for (const [run, when] of [
    [r.sideBySide, 'model answers at once'],
    [r.sideBySideThinking, 'model thinks 1.5 s'],
  ] as const) {
    const ours = run?.variants.ours;
    const alone = run?.variants.none;
    const builtin = run?.variants.builtin;
    out.push(
      ours && alone && ours.firstRequestDeltaMs !== undefined
        ? {
            target: `real Pi: first model request ≤ 30 ms later than Pi alone (5 servers, ${when})`,
            measured: `${formatDeltaMs(ours.firstRequestDeltaMs)} (${f(ours.median.firstRequestMs)} ms)${ours.firstRequestCpuDeltaMs === undefined ? '' : `; main-thread CPU ${formatDeltaMs(ours.firstRequestCpuDeltaMs)}`}`,
            reference: `Pi alone ${f(alone.median.firstRequestMs)} ms; built-in ${formatDeltaMs(builtin?.firstRequestDeltaMs ?? Number.NaN)}`,
            met: ours.firstRequestDeltaMs <= 30,
          }
        : missing(`real Pi: first model request ≤ 30 ms later than Pi alone (${when})`),
    );
    out.push(
      ours && alone && ours.shutdownDeltaMs !== undefined
        ? {
            target: `real Pi: shutdown ≤ 30 ms longer than Pi alone's (${when})`,
            measured: `${formatDeltaMs(ours.shutdownDeltaMs)} (${f(ours.median.shutdownMs)} ms)`,
            reference: `Pi alone ${f(alone.median.shutdownMs)} ms; built-in ${formatDeltaMs(builtin?.shutdownDeltaMs ?? Number.NaN)}`,
            met: ours.shutdownDeltaMs <= 30,
          }
        : missing(`real Pi: shutdown ≤ 30 ms longer than Pi alone's (${when})`),
    );
  }
  const thinking = r.sideBySideThinking?.variants;
  out.push(
    thinking?.ours && thinking.builtin
      ? {
          target: "real Pi, model thinks 1.5 s: call turn ≤ 20 ms longer than Pi's built-in MCP",
          measured: `${f(thinking.ours.median.callTurnMs)} ms = built-in ${formatDeltaMs(thinking.ours.median.callTurnMs - thinking.builtin.median.callTurnMs)}`,
          reference: `built-in ${f(thinking.builtin.median.callTurnMs)} ms (all servers started at launch), pi-mcp-adapter ${f(thinking.adapter?.median.callTurnMs ?? Number.NaN)} ms`,
          met: thinking.ours.median.callTurnMs - thinking.builtin.median.callTurnMs <= 20,
        }
      : missing("real Pi, model thinks 1.5 s: call turn ≤ 20 ms longer than Pi's built-in MCP"),
  );
  for (const [name, real] of Object.entries(r.startup?.realPi ?? {})) {
    out.push({
      target: `real Pi: first model request ≤ 30 ms later than with no MCP (${real.servers} cached servers, ${real.runs} one-answer runs)`,
      measured: `${formatDeltaMs(real.firstRequestDeltaMs)} (${f(real.ours.medianFirstMs)} ms)${real.firstRequestCpuDeltaMs === undefined ? '' : `; main-thread CPU ${formatDeltaMs(real.firstRequestCpuDeltaMs)}`}`,
      reference: `no MCP ${f(real.noMcp.medianFirstMs)} ms; an empty extension ${formatDeltaMs(real.emptyExtensionDeltaMs)} (${name})`,
      met: real.firstRequestDeltaMs <= 30,
    });
  }
  out.push(
    o
      ? {
          target: 'real Pi: search turn < 50 ms',
          measured: `${f(o.median.searchTurnMs)} ms`,
          reference: `built-in ${f(sbs?.builtin?.median.searchTurnMs ?? Number.NaN)} ms, pi-mcp-adapter ${f(sbs?.adapter?.median.searchTurnMs ?? Number.NaN)} ms`,
          met: o.median.searchTurnMs < 50,
        }
      : missing('real Pi: search turn < 50 ms'),
  );
  const start = r.sideBySide?.everythingStartMs;
  out.push(
    o && start !== undefined
      ? {
          target: 'real Pi: lazy call turn ≤ server start + 20 ms',
          measured: `${f(o.median.callTurnMs)} ms = start + ${f(o.median.callTurnMs - start)} ms`,
          reference: `everything's own start (spawn + initialize + tools/list, bare SDK) ${f(start)} ms`,
          met: o.median.callTurnMs - start <= 20,
        }
      : missing('real Pi: lazy call turn ≤ server start + 20 ms'),
  );

  const t = r.tokens;
  out.push(
    t
      ? {
          target: 'turn-one MCP tokens ≤ 240 for the five servers',
          measured: `${t.five.ours} (ToolSearch declaration)${o?.mcpTurnOneTokens !== undefined ? `; ${o.mcpTurnOneTokens} in the real Pi` : ''}`,
          reference: `direct ${t.five.direct}, seed-style ${t.five.seedStyle}; real Pi: built-in ${sbs?.builtin?.mcpTurnOneTokens ?? 'n/a'}, pi-mcp-adapter ${sbs?.adapter?.mcpTurnOneTokens ?? 'n/a'}`,
          met: t.five.ours <= 240 && (o?.mcpTurnOneTokens === undefined || o.mcpTurnOneTokens <= 240),
        }
      : missing('turn-one MCP tokens ≤ 240 for the five servers'),
  );
  out.push(
    t
      ? {
          target: 'turn-one MCP tokens ≤ 600 for the 23-server catalog',
          measured: `${t.all23.ours}`,
          reference: `direct ${t.all23.direct}, seed-style ${t.all23.seedStyle}`,
          met: t.all23.ours <= 600,
        }
      : missing('turn-one MCP tokens ≤ 600 for the 23-server catalog'),
  );
  out.push(...fiveSessionTargets(r));
  const heap = r.memory?.heap;
  out.push(
    heap
      ? {
          target: 'heap per idle server actor < 50 KB',
          measured: `${(heap.serverActorBytes / 1024).toFixed(1)} KB`,
          reference: `minimal XState actor ${(heap.minimalActorBytes / 1024).toFixed(1)} KB`,
          met: heap.serverActorBytes < 50 * 1024,
        }
      : missing('heap per idle server actor < 50 KB'),
  );
  return out;
}

/** Issue 26's bar: five Pi sessions at once, the shared host against today and Pi's built-in. */
function fiveSessionTargets(r: BenchResults): TargetCheck[] {
  const five = r.fiveSessions?.variants;
  const shared = five?.shared;
  const today = five?.session?.median;
  const builtin = five?.builtin?.median;
  const unmeasured = (target: string): TargetCheck =>
    shared?.notAvailable
      ? { ...missing(target), measured: `not available: ${shared.notAvailable}` }
      : missing(target);
  const memory = "five Pi sessions × five servers: servers' RSS with the shared host ≤ 1/4 of today's";
  const turn = 'second session, model thinks 1.5 s: call turn to a server the first warmed ≤ built-in + 5 ms';
  const s = shared?.median;
  if (!s || !today || !builtin) return [unmeasured(memory), unmeasured(turn)];
  return [
    {
      target: memory,
      measured: `${f(s.serversRssMb)} MB in ${s.serverProcesses} processes + the host = ${(s.serversRssMb / today.serversRssMb).toFixed(2)}× today's`,
      reference: `today ${f(today.serversRssMb)} MB in ${today.serverProcesses}; built-in ${f(builtin.serversRssMb)} MB in ${builtin.serverProcesses}`,
      met: s.serversRssMb <= today.serversRssMb / 4,
    },
    {
      target: turn,
      measured: `${f(s.warmCallTurnMs)} ms = built-in ${formatDeltaMs(s.warmCallTurnMs - builtin.warmCallTurnMs)}`,
      reference: `built-in ${f(builtin.warmCallTurnMs)} ms (servers started at launch); today ${f(today.warmCallTurnMs)} ms`,
      met: s.warmCallTurnMs - builtin.warmCallTurnMs <= 5,
    },
  ];
}
