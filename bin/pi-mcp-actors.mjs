#!/usr/bin/env node
// The CLI. A checkout runs the TypeScript sources through tsx; an installed package runs the bundle
// in dist/ (built by `npm pack`), which needs nothing else.
import { existsSync } from 'node:fs';

const fromSources = existsSync(new URL('../src/cli/main.ts', import.meta.url));
let cli;
if (fromSources) {
  const { register } = await import('tsx/esm/api');
  register();
  cli = await import('../src/cli/main.ts');
} else {
  cli = await import('../dist/cli.js');
}
const { runCli, processIo } = cli;
// The product's own timers are unref'd (they must never keep Pi alive); the CLI holds the process
// open itself until the command has finished, servers included.
const keepAlive = setInterval(() => {}, 1 << 30);
try {
  process.exitCode = await runCli(process.argv.slice(2), processIo);
} finally {
  clearInterval(keepAlive);
}
