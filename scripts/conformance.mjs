#!/usr/bin/env node
// Runs the MCP conformance suite's client scenarios against test/conformance/client.ts (our adapter).
//
//   node scripts/conformance.mjs [scenario ...]      default: every scenario in DEFAULT_SCENARIOS
//
// The suite needs Node >= 22. Its binary comes from $NODE22, else the one scripts/provision-pi.mjs
// installs, else .cache/node22/bin/node. The suite itself comes from the provisioned cache when present,
// else `npx -y @modelcontextprotocol/conformance@<pinned>` (run on that Node 22). Per-scenario results
// (checks.json, stdout, stderr) go to .cache/conformance/<scenario>/. Exit code 1 if any scenario fails.

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { conformanceCliPath, node22Path, PI_VERSIONS, repoRoot } from './pi-paths.mjs';

/** Every client scenario the test command runs (0.1.16's non-auth ones; auth/* join this list). */
const DEFAULT_SCENARIOS = ['initialize', 'tools_call', 'sse-retry', 'elicitation-sep1034-client-defaults'];

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

async function main() {
  const node22 = findNode22();
  if (!node22) {
    console.error(
      'conformance: no Node >= 22 found. Run `node scripts/provision-pi.mjs`, or set NODE22=/path/to/node22.',
    );
    return 1;
  }
  const scenarios = process.argv.slice(2).length > 0 ? process.argv.slice(2) : DEFAULT_SCENARIOS;
  // npx and the suite's own `#!/usr/bin/env node` must find Node 22 first.
  const env = { ...process.env, PATH: `${dirname(node22)}:${process.env.PATH ?? ''}` };
  const suite = existsSync(conformanceCliPath)
    ? [node22, [conformanceCliPath]]
    : ['npx', ['-y', `@modelcontextprotocol/conformance@${PI_VERSIONS.conformance}`]];
  const clientCommand = `"${node22}" --import tsx test/conformance/client.ts`;

  let failed = 0;
  for (const scenario of scenarios) {
    const outDir = join(repoRoot, '.cache', 'conformance', scenario);
    rmSync(outDir, { recursive: true, force: true });
    mkdirSync(outDir, { recursive: true });
    const started = Date.now();
    const [command, prefix] = suite;
    const { code, output } = await run(
      command,
      [...prefix, 'client', '--command', clientCommand, '--scenario', scenario, '-o', outDir],
      env,
    );
    const checksFile = findChecks(outDir);
    const checks = checksFile ? JSON.parse(readFileSync(checksFile, 'utf8')) : [];
    const count = (status) => checks.filter((check) => check.status === status).length;
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    const verdict = code === 0 ? 'PASS' : 'FAIL';
    console.log(
      `${verdict} ${scenario}: ${count('SUCCESS')} passed, ${count('FAILURE')} failed, ${count('WARNING')} warnings (${seconds} s)`,
    );
    if (code !== 0) {
      failed++;
      for (const check of checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING')) {
        console.log(`  ${check.status} ${check.id}: ${check.errorMessage ?? check.description}`);
      }
      console.log(output.split('\n').slice(-25).join('\n'));
    }
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
