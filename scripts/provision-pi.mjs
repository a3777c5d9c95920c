#!/usr/bin/env node
// Installs the real Pi (1.5.x) and the Node 22 it needs into .cache/pi, from the npm registry only.
// Idempotent: a marker records the versions, so a second run is a no-op. Runs on Node 20 and 22.
//
// Layout (see docs in /work/shared/reference/pi-host.md §1):
//   .cache/pi/package.json                 generated, pins node-<os>-<arch>, jiti, typebox, quickjs-wasi,
//                                          conformance
//   .cache/pi/node_modules/...             npm install of the above (Node 22 binary in node-<os>-<arch>/bin)
//   .cache/pi/vendor/pi-coding-agent/      Pi unpacked from `npm pack`: its bundle needs only Node 22 and
//                                          finds `jiti` / `typebox` by walking up to ../../node_modules
//   .cache/pi/provisioned.json             marker, written last
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { npmInstallInto } from './npm-install-into.mjs';
import {
  conformanceCliPath,
  expectedMarker,
  isPiProvisioned,
  node22Path,
  nodePackageName,
  PI_VERSIONS,
  piCacheDir,
  piCliPath,
  piMarkerPath,
  piPackageDir,
  repoRoot,
} from './pi-paths.mjs';

const PI_PACKAGE = '@earendil-works/pi-coding-agent';
const CONFORMANCE_PACKAGE = '@modelcontextprotocol/conformance';
const lockDir = `${piCacheDir}.lock`;
const started = Date.now();

const log = (msg) => process.stdout.write(`[provision-pi] ${msg}\n`);
const rel = (p) => relative(repoRoot, p) || '.';

class ProvisionError extends Error {}

function run(cmd, args, { cwd = repoRoot, capture = false } = {}) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('error', (e) => reject(new ProvisionError(`cannot run ${cmd}: ${e.message}`)));
    child.on('close', (code) => {
      if (code === 0) resolvePromise(capture ? out : undefined);
      else {
        // The first lines name the problem (npm: code, errno, message); stack frames and warnings do not.
        const lines = `${err}\n${out}`
          .split('\n')
          .filter((l) => l.trim() && !/^(npm warn|npm error\s+at |\s+at )/.test(l));
        const what = lines.slice(0, 8).join('\n');
        reject(new ProvisionError(`${basename(cmd)} ${args.join(' ')} exited ${code}\n${what}`));
      }
    });
  });
}

/** npm through the same npm that runs us (npm test), else the one on PATH. */
function npm(args, opts) {
  const execPath = process.env.npm_execpath;
  if (execPath && /npm-cli\.[cm]?js$/.test(execPath)) return run(process.execPath, [execPath, ...args], opts);
  return run(process.platform === 'win32' ? 'npm.cmd' : 'npm', args, opts);
}

function installedVersion(dir) {
  try {
    return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function pidAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

/** Two test workers (or two terminals) may provision at once: one works, the others wait for it. */
async function acquireLock() {
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    try {
      mkdirSync(lockDir);
      writeFileSync(join(lockDir, 'pid'), String(process.pid));
      return () => rmSync(lockDir, { recursive: true, force: true });
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
    }
    let owner = Number.NaN;
    try {
      owner = Number(readFileSync(join(lockDir, 'pid'), 'utf8'));
    } catch {}
    if (Number.isInteger(owner) && owner > 0 && !pidAlive(owner)) {
      rmSync(lockDir, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) throw new ProvisionError(`timed out waiting for the lock ${rel(lockDir)}`);
    await sleep(250);
  }
}

async function installNodeModules(nodePkg) {
  const wanted = {
    [nodePkg]: PI_VERSIONS.node,
    jiti: PI_VERSIONS.jiti,
    typebox: PI_VERSIONS.typebox,
    'quickjs-wasi': PI_VERSIONS.quickjs,
    [CONFORMANCE_PACKAGE]: PI_VERSIONS.conformance,
  };
  const stale = Object.entries(wanted).filter(
    ([name, version]) => installedVersion(join(piCacheDir, 'node_modules', name)) !== version,
  );
  if (stale.length === 0 && existsSync(node22Path)) {
    log('node_modules up to date');
    return;
  }
  log(
    `npm install ${Object.entries(wanted)
      .map(([n, v]) => `${n}@${v}`)
      .join(' ')}`,
  );
  const failed = npmInstallInto(piCacheDir, {
    name: 'pi-mcp-actors-pi-cache',
    madeBy: 'scripts/provision-pi.mjs',
    dependencies: wanted,
  });
  if (failed) throw new ProvisionError(`npm install into ${rel(piCacheDir)} failed\n${failed}`);
  if (!existsSync(node22Path))
    throw new ProvisionError(`npm install finished but ${rel(node22Path)} is missing`);
}

async function unpackPi() {
  if (installedVersion(piPackageDir) === PI_VERSIONS.pi && existsSync(piCliPath)) {
    log(`${PI_PACKAGE}@${PI_VERSIONS.pi} already unpacked`);
    return;
  }
  log(`npm pack ${PI_PACKAGE}@${PI_VERSIONS.pi} -> ${rel(piPackageDir)}`);
  const tmp = join(piCacheDir, `tmp-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  const staging = join(tmp, 'package');
  mkdirSync(staging, { recursive: true });
  try {
    const json = await npm(
      ['pack', '--json', '--pack-destination', tmp, '--loglevel=error', `${PI_PACKAGE}@${PI_VERSIONS.pi}`],
      { cwd: tmp, capture: true },
    );
    const filename = JSON.parse(json)[0]?.filename;
    if (!filename) throw new ProvisionError(`npm pack printed no filename: ${json.slice(0, 300)}`);
    await run('tar', ['xzf', join(tmp, basename(filename)), '-C', staging, '--strip-components=1']);
    if (!existsSync(join(staging, 'dist', 'bundle', 'cli.js'))) {
      throw new ProvisionError(`${PI_PACKAGE}@${PI_VERSIONS.pi} has no dist/bundle/cli.js`);
    }
    rmSync(piPackageDir, { recursive: true, force: true });
    mkdirSync(join(piPackageDir, '..'), { recursive: true });
    renameSync(staging, piPackageDir);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

async function verify() {
  const piVersion = (await run(node22Path, [piCliPath, '--version'], { capture: true })).trim();
  if (piVersion !== PI_VERSIONS.pi) {
    throw new ProvisionError(
      `${rel(piCliPath)} --version printed "${piVersion}", expected ${PI_VERSIONS.pi}`,
    );
  }
  const nodeVersion = (await run(node22Path, ['--version'], { capture: true })).trim();
  if (nodeVersion !== `v${PI_VERSIONS.node}`) {
    throw new ProvisionError(`${rel(node22Path)} is ${nodeVersion}, expected v${PI_VERSIONS.node}`);
  }
  if (!existsSync(conformanceCliPath)) throw new ProvisionError(`${rel(conformanceCliPath)} is missing`);
}

async function main() {
  const nodePkg = nodePackageName();
  if (!nodePkg) {
    throw new ProvisionError(
      `no Node 22 package for ${process.platform}-${process.arch}; supported: linux-x64, linux-arm64, darwin-x64, darwin-arm64`,
    );
  }
  const summary = `Pi ${PI_VERSIONS.pi}, Node ${PI_VERSIONS.node}, conformance ${PI_VERSIONS.conformance}`;
  if (isPiProvisioned()) {
    log(`up to date (${summary}) in ${rel(piCacheDir)}`);
    return;
  }
  mkdirSync(piCacheDir, { recursive: true });
  const release = await acquireLock();
  try {
    if (isPiProvisioned()) {
      log(`provisioned by another process (${summary})`);
      return;
    }
    rmSync(piMarkerPath, { force: true });
    await installNodeModules(nodePkg);
    await unpackPi();
    await verify();
    writeFileSync(piMarkerPath, `${JSON.stringify(expectedMarker(), null, 2)}\n`);
    log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s (${summary}) in ${rel(piCacheDir)}`);
  } finally {
    release();
  }
}

main().catch((e) => {
  const msg = e instanceof ProvisionError ? e.message : (e?.stack ?? String(e));
  process.stderr.write(`[provision-pi] FAILED: ${msg}\n`);
  process.stderr.write('[provision-pi] needs the npm registry; delete .cache/pi and rerun to start clean.\n');
  process.exitCode = 1;
});
