// `npm ci` on the Node that CI and newcomers run (20, the oldest package.json "engines" allows) must not
// warn that a dependency needs a newer Node: a tool like that is provisioned into .cache/ instead
// (mermaid: scripts/provision-mermaid.mjs). npm checks engines against the Node running it, so this
// bites on Node 20. `npm ci --dry-run` reads only the lockfile: nothing is downloaded or installed.

import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const repoRoot = join(import.meta.dirname, '..', '..');
const work = mkdtempSync(join(tmpdir(), 'package-engines-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// Not npm's script environment (`npm test` sets npm_config_*, the repository as prefix among them).
const env: Record<string, string> = {};
for (const [key, value] of Object.entries(process.env)) {
  if (value !== undefined && !/^npm_/i.test(key)) env[key] = value;
}

describe('package-lock.json', () => {
  it('installs on this Node without an EBADENGINE warning', async () => {
    for (const file of ['package.json', 'package-lock.json'])
      copyFileSync(join(repoRoot, file), join(work, file));
    const { stdout, stderr } = await promisify(execFile)(
      'npm',
      [
        'ci',
        '--dry-run',
        '--offline',
        '--ignore-scripts',
        '--no-audit',
        '--no-fund',
        `--cache=${join(work, 'npm-cache')}`,
      ],
      { cwd: work, env, timeout: 60_000 },
    );
    expect(stdout).toMatch(/added \d+ packages/);
    const warnings = `${stdout}${stderr}`.split('\n').filter((line) => line.includes('EBADENGINE'));
    expect(warnings).toEqual([]);
  });
});
