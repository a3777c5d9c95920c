import { readFileSync } from 'node:fs';
import { parseTree, stripComments } from 'jsonc-parser';
import { parseConfigText } from './src/config/parse.ts';
const s = readFileSync('/tmp/slow.json', 'utf8');
const b = (n: string, f: () => void) => { for (let i = 0; i < 200; i++) f(); const t = performance.now(); for (let i = 0; i < 1000; i++) f(); console.log(n, ((performance.now() - t) / 1000).toFixed(4)); };
b('stripComments', () => stripComments(s));
b('parseTree', () => parseTree(s, [], { allowTrailingComma: true }));
b('JSON.parse', () => JSON.parse(s));
b('parseConfigText', () => parseConfigText(s, 'json'));
