#!/usr/bin/env node
// Installs mermaid (pinned in scripts/mermaid-paths.mjs) into .cache/mermaid from the npm registry:
// `npm run statecharts` draws the charts with it and test/unit/statecharts.test.ts parses them with it.
// Idempotent: a run that finds the pinned version on disk does nothing. The install goes to a staging
// folder that is renamed into place at the end, so an interrupted run never leaves a half install that
// looks complete. Works on Node 20 (mermaid declares Node >= 22 but parses and bundles fine on 20).
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { MERMAID_VERSION, mermaidDir, mermaidPaths, mermaidProvisioned } from './mermaid-paths.mjs';
import { npmInstallInto } from './npm-install-into.mjs';

const log = (msg) => process.stdout.write(`[provision-mermaid] ${msg}\n`);
const fail = (msg) => {
  process.stderr.write(`[provision-mermaid] ${msg}\n`);
  return 1;
};

function main() {
  if (mermaidProvisioned()) {
    log(`ok: mermaid@${MERMAID_VERSION}`);
    return 0;
  }
  const staging = `${mermaidDir}.tmp-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    const started = Date.now();
    log(`npm install mermaid@${MERMAID_VERSION}`);
    const failed = npmInstallInto(staging, {
      name: 'pi-mcp-actors-mermaid',
      madeBy: 'scripts/provision-mermaid.mjs',
      dependencies: { mermaid: MERMAID_VERSION },
    });
    if (failed) return fail(`npm install failed:\n${failed}`);
    rmSync(mermaidDir, { recursive: true, force: true });
    mkdirSync(dirname(mermaidDir), { recursive: true });
    try {
      renameSync(staging, mermaidDir);
    } catch (error) {
      // Another run put its install in place between our rm and rename: that one is as good.
      if (!mermaidProvisioned()) throw error;
    }
    if (!mermaidProvisioned()) {
      return fail(`installed, but missing: ${Object.values(mermaidPaths).join(', ')} (or another version)`);
    }
    log(`installed mermaid@${MERMAID_VERSION} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return 0;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

process.exitCode = main();
