#!/usr/bin/env node
// Runs the TypeScript CLI directly (the package ships source, like the Pi extension itself).
import { register } from 'tsx/esm/api';

register();
const { runCli, processIo } = await import('../src/cli/main.ts');
process.exitCode = await runCli(process.argv.slice(2), processIo);
