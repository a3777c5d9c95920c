#!/usr/bin/env node
// The CLI. A checkout runs the TypeScript sources through tsx; an installed package runs the bundle
// in dist/ (built by `npm pack`), which needs nothing else. `host serve` (the shared host a session
// starts) loads the host alone, not the CLI: it listens before the MCP SDK has loaded.
import { existsSync } from 'node:fs';

const fromSources = existsSync(new URL('../src/cli/main.ts', import.meta.url));
const args = process.argv.slice(2);
const serving = args.length === 2 && args[0] === 'host' && args[1] === 'serve';
if (fromSources) {
  const { register } = await import('tsx/esm/api');
  register();
}
// The product's own timers are unref'd (they must never keep Pi alive); the CLI holds the process
// open itself until the command has finished, servers included.
const keepAlive = setInterval(() => {}, 1 << 30);
try {
  if (serving) {
    const { serveHost } = await import(fromSources ? '../src/host/host-process.ts' : '../dist/host.js');
    await serveHost();
  } else {
    const { runCli, processIo } = await import(fromSources ? '../src/cli/main.ts' : '../dist/cli.js');
    process.exitCode = await runCli(args, processIo);
  }
} finally {
  clearInterval(keepAlive);
}
