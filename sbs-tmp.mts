import { runSideBySide, runColdStart } from './bench/side-by-side.ts';
import { loadavg } from 'node:os';
const runs = Number(process.argv[2] ?? 3);
const variants = (process.argv[3] ?? 'none,ours,builtin,adapter').split(',') as any;
const think = Number(process.argv[4] ?? 0);
const keep = setInterval(() => {}, 60000);
console.log('load', loadavg());
if (think < 0) { console.log(JSON.stringify(await runColdStart(runs, variants))); } else {
const r = await runSideBySide(runs, variants, think);
for (const [v, x] of Object.entries(r.variants)) console.log(v.padEnd(8), 'first', x!.median.firstRequestMs, 'd', x!.firstRequestDeltaMs ?? '', 'search', x!.median.searchTurnMs, 'call', x!.median.callTurnMs, 'shut', x!.median.shutdownMs, 'd', x!.shutdownDeltaMs ?? '', x!.failures.length ? x!.failures : '', '|', x!.runs.map(r=>[r.firstRequestMs, r.callTurnMs, r.shutdownMs]).join(' | '));
console.log('everything start', r.everythingStartMs, 'leftover', r.leftoverProcesses, 'load', loadavg());
}
clearInterval(keep);
