import { readFileSync } from 'node:fs';
import { loadConfig } from './src/config/load.ts';
import { parseConfigText } from './src/config/parse.ts';
const s = readFileSync('/tmp/slow.json', 'utf8');
const run = () => loadConfig({ agentDir: '/a', cwd: '/c', homeDir: '/h', env: {}, projectTrusted: true, platform: 'linux', readFile: (p) => (p === '/a/mcp.json' ? s : undefined) });
for (let k = 0; k < 5; k++) { const t = performance.now(); run(); console.log('load', performance.now() - t); }
const t = performance.now(); for (let i = 0; i < 100; i++) parseConfigText(s, 'json'); console.log('parse', (performance.now() - t) / 100);
console.log(s.length);
