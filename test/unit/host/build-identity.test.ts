// The bundle's build identity is stamped by its build (scripts/build.mjs): the same hash a session
// would take of dist/ itself, so reading the stamp instead of hashing 3 MB on the way to starting the
// host changes no identity, and a rebuilt bundle that differs gets another.

import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { BUILD_STAMP_FILE, folderHash } from '../../../src/host/build-identity.ts';

const dir = mkdtempSync(join(tmpdir(), 'build-identity-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("the build stamps dist/ with the folder hash of the bundle it wrote, which changes with the bundle's bytes", () => {
  const dist = join(dir, 'dist');
  execFileSync(process.execPath, [join(import.meta.dirname, '../../../scripts/build.mjs'), dist], {
    stdio: 'ignore',
  });
  const stamp = readFileSync(join(dist, BUILD_STAMP_FILE), 'utf8').trim();
  expect(stamp).toMatch(/^[0-9a-f]{64}$/);
  expect(stamp).toBe(folderHash(dist));
  appendFileSync(join(dist, 'cli.js'), '\n');
  expect(folderHash(dist)).not.toBe(stamp);
});
