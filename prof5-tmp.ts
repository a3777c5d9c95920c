import { readFileSync } from 'node:fs';
import { loadConfig } from './src/config/load.ts';
const s = readFileSync('/tmp/slow.json', 'utf8');
const run = () => loadConfig({ agentDir: '/a', cwd: '/c', homeDir: '/h', env: {}, projectTrusted: true, platform: 'linux', readFile: (p) => (p === '/a/mcp.json' ? s : undefined) });
for (let k = 0; k < 300; k++) run();
const t = performance.now(); for (let k = 0; k < 1000; k++) run(); console.log('avg', (performance.now() - t) / 1000);
