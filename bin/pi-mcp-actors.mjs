#!/usr/bin/env node
// Runs the TypeScript CLI directly (the package ships source, like the Pi extension itself).
import { register } from 'tsx/esm/api';

register();
const { runCli, processIo } = await import('../src/cli/main.ts');
// The product's own timers are unref'd (they must never keep Pi alive); the CLI holds the process
// open itself until the command has finished, servers included.
const keepAlive = setInterval(() => {}, 1 << 30);
try {
  process.exitCode = await runCli(process.argv.slice(2), processIo);
} finally {
  clearInterval(keepAlive);
}
