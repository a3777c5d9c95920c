#!/usr/bin/env node
import { rmSync } from 'node:fs';
// Bundles the extension (src/index.ts → dist/index.js) and the CLI (src/cli/main.ts → dist/cli.js) with
// every runtime dependency, so an install needs nothing from the registry and stays small: lazy
// imports (the MCP SDK, the inspector) stay separate chunks, loaded on first use. Run by `npm pack`
// (prepack); a checkout runs the TypeScript sources directly and needs no build.
//
//   node scripts/build.mjs [outdir]      default: dist
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
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

const result = await build({
  plugins: [bundleLazyParsers],
  absWorkingDir: root,
  entryPoints: { index: join(root, 'src/index.ts'), cli: join(root, 'src/cli/main.ts') },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  // ESM builds first: some packages' "main" is a UMD wrapper whose inner require()s a bundler cannot follow.
  mainFields: ['module', 'main'],
  target: 'node20.19',
  chunkNames: 'chunks/[name]-[hash]',
  // CommonJS dependencies bundled into ESM still call require() for Node's own modules.
  banner: {
    js: "import { createRequire as __piMcpRequire } from 'node:module';\nconst require = __piMcpRequire(import.meta.url);",
  },
  // ws loads these native speed-ups when present and works without them.
  external: ['bufferutil', 'utf-8-validate'],
  legalComments: 'linked',
  metafile: true,
  logLevel: 'warning',
});
const bytes = Object.values(result.metafile.outputs).reduce((sum, o) => sum + o.bytes, 0);
process.stdout.write(
  `[build] ${Object.keys(result.metafile.outputs).length} files, ${(bytes / 1024 / 1024).toFixed(1)} MB in ${outdir}\n`,
);
