#!/usr/bin/env node
// Runs every client scenario of the MCP conformance suite against test/conformance/client.ts (our adapter,
// `protocolVersion: "auto"` as users get it), in both protocol eras:
//
//   node scripts/conformance.mjs [scenario[@era] ...]      default: every client scenario, every era it has
//
// The scenarios come from the suite itself (`conformance list --client`): a scenario the suite marks with
// 2025-11-25 runs at that wire (era `legacy`, initialize), one marked 2026-07-28 at that wire (era
// `modern`, server/discover, stateless requests), one marked with both runs twice; older-only and
// extension scenarios run at the suite's default. The suite needs Node >= 22: $NODE22, else the one
// scripts/provision-pi.mjs installs (it also installs the suite), else .cache/node22/bin/node.
// Per-scenario results (checks.json, stdout, stderr) go to .cache/conformance/<version>/<era>/<scenario>/;
// a Markdown table (scenario, era, result) ends the output. Exit code 1 if a scenario fails or an expected
// failure passes.

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { conformanceCliPath, node22Path, PI_VERSIONS, repoRoot } from './pi-paths.mjs';

const SUITE = PI_VERSIONS.conformance;
const LEGACY_WIRE = '2025-11-25';
const MODERN_WIRE = '2026-07-28';

/**
 * Scenarios that cannot pass yet, by `scenario@era` (era `legacy`, `modern` or `default`), and why. The
 * run fails if one passes: the note is stale.
 */
const EXPECTED_FAILURES = {};

function findNode22() {
  const candidates = [process.env.NODE22, node22Path, join(repoRoot, '.cache', 'node22', 'bin', 'node')];
  for (const candidate of candidates) if (candidate && existsSync(candidate)) return candidate;
  return undefined;
}

/** The newest checks.json under `dir` (the runner nests results in a per-run folder). */
function findChecks(dir) {
  let best;
  const walk = (path) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name === 'checks.json' && (!best || statSync(full).mtimeMs > statSync(best).mtimeMs))
        best = full;
    }
  };
  if (existsSync(dir)) walk(dir);
  return best;
}

function run(command, args, env) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('error', (error) => resolve({ code: 1, output: `${output}\n${error.message}` }));
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

/** Every client scenario with the eras it runs in: `conformance list --client` lines `  - name [v1,v2]`. */
async function listRuns(node22, env) {
  const { code, output } = await run(node22, [conformanceCliPath, 'list', '--client'], env);
  if (code !== 0)
    throw new Error(`conformance list failed: ${output.trim().split('\n').slice(-3).join(' ')}`);
  const runs = [];
  for (const match of output.matchAll(/^\s+- (\S+) \[([^\]]*)\]$/gm)) {
    const [, scenario, versions] = match;
    const listed = versions.split(',');
    if (listed.includes(LEGACY_WIRE)) runs.push({ scenario, era: 'legacy', wire: LEGACY_WIRE });
    if (listed.includes(MODERN_WIRE)) runs.push({ scenario, era: 'modern', wire: MODERN_WIRE });
    if (!listed.includes(LEGACY_WIRE) && !listed.includes(MODERN_WIRE))
      runs.push({ scenario, era: 'default' });
  }
  if (runs.length === 0) throw new Error('conformance list named no client scenarios');
  return runs;
}

async function main() {
  const node22 = findNode22();
  if (!node22 || !existsSync(conformanceCliPath)) {
    console.error(
      'conformance: the suite or Node >= 22 is missing. Run `node scripts/provision-pi.mjs`, or set NODE22=/path/to/node22.',
    );
    return 1;
  }
  // The suite's own `#!/usr/bin/env node` children must find Node 22 first.
  const env = { ...process.env, PATH: `${dirname(node22)}:${process.env.PATH ?? ''}` };
  const all = await listRuns(node22, env);
  // Arguments pick scenarios by name, or `name@era`.
  const picks = process.argv.slice(2);
  const runs =
    picks.length === 0
      ? all
      : all.filter((r) =>
          picks.some((pick) => {
            const [name, era] = pick.split('@');
            return r.scenario === name && (!era || r.era === era);
          }),
        );
  const stale = Object.keys(EXPECTED_FAILURES).filter(
    (key) => !all.some((r) => `${r.scenario}@${r.era}` === key),
  );
  const clientCommand = `"${node22}" --import tsx test/conformance/client.ts`;

  let failed = 0;
  const table = [];
  for (const { scenario, era, wire } of runs) {
    const outDir = join(repoRoot, '.cache', 'conformance', SUITE, era, scenario);
    rmSync(outDir, { recursive: true, force: true });
    mkdirSync(outDir, { recursive: true });
    const started = Date.now();
    const { code, output } = await run(
      node22,
      [
        conformanceCliPath,
        'client',
        '--command',
        clientCommand,
        '--scenario',
        scenario,
        ...(wire ? ['--spec-version', wire] : []),
        '-o',
        outDir,
      ],
      env,
    );
    const checksFile = findChecks(outDir);
    const checks = checksFile ? JSON.parse(readFileSync(checksFile, 'utf8')) : [];
    const count = (status) => checks.filter((check) => check.status === status).length;
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    const passed = code === 0;
    const expectedFailure = EXPECTED_FAILURES[`${scenario}@${era}`];
    // An expected failure that passes is a stale note: the run fails so the list gets fixed.
    const verdict = expectedFailure ? (passed ? 'XPASS' : 'XFAIL') : passed ? 'PASS' : 'FAIL';
    const counts = `${count('SUCCESS')} passed, ${count('FAILURE')} failed, ${count('WARNING')} warnings`;
    const at = wire ? `${era} (${wire})` : 'default';
    console.log(`${verdict} ${scenario} @ ${at}: ${counts} (${seconds} s)`);
    table.push({ scenario, era: at, verdict, counts, why: expectedFailure ?? '' });
    if (verdict === 'FAIL' || verdict === 'XPASS') failed++;
    if (verdict === 'FAIL') {
      for (const check of checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING')) {
        console.log(`  ${check.status} ${check.id}: ${check.errorMessage ?? check.description}`);
      }
      console.log(output.split('\n').slice(-25).join('\n'));
    }
  }
  for (const key of stale) {
    console.log(`STALE expected failure ${key}: the suite ${SUITE} has no such client scenario`);
    failed++;
  }
  console.log(
    `\nconformance ${SUITE}: ${runs.length} runs\n\n| scenario | era | result | checks | why not passed |\n|---|---|---|---|---|`,
  );
  for (const row of table) {
    console.log(`| ${row.scenario} | ${row.era} | ${row.verdict} | ${row.counts} | ${row.why} |`);
  }
  return failed === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(`conformance: ${error instanceof Error ? error.message : error}`);
    process.exit(1);
  },
);
