// The entry of dist/host-snapshot.cjs (scripts/build.mjs), the host's startup snapshot
// (./startup-snapshot.ts). `node --snapshot-blob <blob> --build-snapshot host-snapshot.cjs` runs its top
// level, which loads the host's code and the MCP SDK, and saves the heap; `node --snapshot-blob <blob>
// host-snapshot.cjs host serve` deserializes it and runs `main`. Nothing of the maker's run is kept:
// our modules read env, paths and time when called, not as they load (the maker has an empty env), and
// the module URL (`import.meta.url` in the script) is set again from the script's path here.

import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startupSnapshot } from 'node:v8';
import * as mcp from '../adapters/mcp/index.ts';
import { serveHost } from './host-process.ts';
import { SNAPSHOT_CHECK_ENV, SNAPSHOT_CHECK_LINE } from './snapshot-build.ts';
import { snapshotLoaded } from './startup-snapshot.ts';

declare global {
  /** Set by the script's banner (scripts/build.mjs) and again by `main`. */
  var __piMcpActorsModuleUrl: string | undefined;
}

// Loaded now, so it is in the heap: the host's first connect finds it there.
void mcp;

if (startupSnapshot.isBuildingSnapshot()) startupSnapshot.setDeserializeMainFunction(() => void main());

async function main(): Promise<void> {
  if (process.env[SNAPSHOT_CHECK_ENV] === '1') {
    process.stdout.write(`${SNAPSHOT_CHECK_LINE}\n`);
    return;
  }
  globalThis.__piMcpActorsModuleUrl = pathToFileURL(resolve(process.argv[1] ?? '')).href;
  const at = process.execArgv.indexOf('--snapshot-blob');
  const blob = at >= 0 ? process.execArgv[at + 1] : undefined;
  if (blob) snapshotLoaded(blob);
  // As bin/pi-mcp-actors.mjs: the host's own timers are unref'd.
  const keepAlive = setInterval(() => {}, 1 << 30);
  try {
    await serveHost(process.env, { snapshot: blob });
  } finally {
    clearInterval(keepAlive);
  }
}
