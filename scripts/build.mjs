#!/usr/bin/env node
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
// Bundles the extension (src/index.ts → dist/index.js) and the CLI (src/cli/main.ts → dist/cli.js) with
// every runtime dependency, so an install needs nothing from the registry and stays small: lazy
// imports (the runtime, the MCP SDK, the inspector) stay separate files, loaded on first use. Run by
// `npm pack` (prepack); a checkout runs the TypeScript sources directly and needs no build.
//
//   node scripts/build.mjs [outdir]      default: dist
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const outdir = resolve(root, process.argv[2] ?? 'dist');
rmSync(outdir, { recursive: true, force: true });

/**
 * src/config/parse.ts loads its parsers with a runtime require (fast from the sources); in the bundle
 * they must be inside it, so those calls become plain require() calls esbuild follows.
 */
const bundleLazyParsers = {
  name: 'bundle-lazy-parsers',
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/]config[\\/]parse\.ts$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      return { contents: text.replace(/requireParser\((['"][^'"]+['"])\)/g, 'require($1)'), loader: 'ts' };
    });
  },
};

const common = {
  absWorkingDir: root,
  bundle: true,
  format: 'esm',
  platform: 'node',
  // ESM builds first: some packages' "main" is a UMD wrapper whose inner require()s a bundler cannot follow.
  mainFields: ['module', 'main'],
  target: 'node20.19',
  // CommonJS dependencies bundled into ESM still call require() for Node's own modules.
  banner: {
    js: "import { createRequire as __piMcpRequire } from 'node:module';\nconst require = __piMcpRequire(import.meta.url);",
  },
  // ws loads these native speed-ups when present and works without them.
  external: ['bufferutil', 'utf-8-validate'],
  legalComments: 'linked',
  metafile: true,
  logLevel: 'warning',
};

/**
 * Pi loads the extension before its first model request, and Node pays per ES module it loads (about
 * 0.4 ms each, more than for the code in them). So the start (src/index.ts and what it imports
 * statically) is one module, dist/index.js, and each of its dynamic imports is an entry of a second,
 * split build under dist/lazy/. A module the two builds both bundle exists twice at run time: modules
 * hold no state a second copy could make wrong (docs/module-state.md, checked by
 * test/unit/module-state.test.ts).
 */
const lazyEntries = {};
const lazyOutput = (file) => `lazy/${relative(join(root, 'src'), file).replace(/\.ts$/, '')}`;
const dynamicImportsToLazyBuild = {
  name: 'dynamic-imports-to-lazy-build',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind !== 'dynamic-import') return undefined;
      if (!args.path.startsWith('.')) throw new Error(`unexpected dynamic import of ${args.path}`);
      const file = resolve(dirname(args.importer), args.path);
      lazyEntries[lazyOutput(file)] = file;
      return { path: `./${lazyOutput(file)}.js`, external: true };
    });
  },
};

const startBuild = await build({
  ...common,
  plugins: [dynamicImportsToLazyBuild],
  entryPoints: { index: join(root, 'src/index.ts') },
  outdir,
});
const lazyBuild = await build({
  ...common,
  plugins: [bundleLazyParsers],
  // host.js: what `pi-mcp-actors host serve` loads (bin/), without the rest of the CLI.
  entryPoints: {
    ...lazyEntries,
    cli: join(root, 'src/cli/main.ts'),
    host: join(root, 'src/host/host-process.ts'),
  },
  outdir,
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
});

/**
 * dist/host-snapshot.cjs: the shared host and the MCP SDK in one CommonJS script whose only requires are
 * Node's own modules, the one file a V8 startup snapshot is made from (src/host/snapshot-main.ts; the
 * host makes the blob on the user's machine, src/host/snapshot-build.ts). Its `import.meta.url` is the
 * script's URL, set again as the snapshot starts.
 */
const snapshotBuild = await build({
  ...common,
  format: 'cjs',
  banner: { js: 'globalThis.__piMcpActorsModuleUrl = require("node:url").pathToFileURL(__filename).href;' },
  define: { 'import.meta.url': 'globalThis.__piMcpActorsModuleUrl' },
  plugins: [bundleLazyParsers],
  entryPoints: { 'host-snapshot': join(root, 'src/host/snapshot-main.ts') },
  outdir,
  outExtension: { '.js': '.cjs' },
  // Less text in the heap: the blob deserializes faster (names are kept).
  minifyWhitespace: true,
  minifySyntax: true,
});

/**
 * The build's identity (src/host/build-identity.ts): sessions and hosts of different builds never share
 * a socket. Hashed here, once, the way folderHash there hashes a folder, so a session reads it instead
 * of hashing the bundle on its way to starting the host.
 */
function folderHash(dir) {
  const hash = createHash('sha256');
  for (const file of readdirSync(dir, { recursive: true }).sort()) {
    const path = join(dir, file);
    if (file === 'build-id' || !statSync(path).isFile()) continue;
    hash.update(`${file}\0`).update(readFileSync(path)).update('\0');
  }
  return hash.digest('hex');
}
writeFileSync(join(outdir, 'build-id'), `${folderHash(outdir)}\n`);

const outputs = {
  ...startBuild.metafile.outputs,
  ...lazyBuild.metafile.outputs,
  ...snapshotBuild.metafile.outputs,
};
const bytes = Object.values(outputs).reduce((sum, o) => sum + o.bytes, 0);
process.stdout.write(
  `[build] ${Object.keys(outputs).length} files, ${(bytes / 1024 / 1024).toFixed(1)} MB in ${outdir}\n`,
);
