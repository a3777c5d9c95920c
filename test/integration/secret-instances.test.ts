// Two session runtimes in one process, each with its own known secrets (DESIGN rule 6): a secret of
// runtime A is removed from what A lets out, and is nothing to B, whose config never named it. No
// module holds the secrets, so nothing of A's reaches B.

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../src/actors/session-actor.ts';
import { stdioFixture } from '../fixtures/servers/spawn.ts';
import { definition } from '../support/config.ts';
import { resultText, startRuntime } from '../support/runtime.ts';

let tempDir: string;
const runtimes: Runtime[] = [];

beforeEach(() => {
  tempDir = mkdtempSync(join(tmpdir(), 'pi-mcp-secret-instances-'));
});

afterEach(async () => {
  for (const runtime of runtimes.splice(0)) {
    await runtime.stop();
    runtime.dispose();
  }
  rmSync(tempDir, { recursive: true, force: true });
});

async function runtimeWith(name: string, env: Record<string, string>): Promise<Runtime> {
  const server = definition({ name, transport: 'stdio', ...stdioFixture(['--name', name]), env });
  const runtime = await startRuntime([server], { tempDir });
  runtimes.push(runtime);
  return runtime;
}

describe('two runtimes in one process', () => {
  it("each redacts its own secrets, and not the other's", async () => {
    // Not token-shaped: only runtime A's config says it is a secret.
    const secretOfA = randomBytes(12).toString('base64url');
    const a = await runtimeWith('alpha', { SERVICE_KEY: secretOfA });
    const b = await runtimeWith('beta', { REGION: 'eu-west-1' });
    const text = `the key is ${secretOfA}`;

    const fromA = resultText(await a.callTool('alpha__echo', { text }));
    expect(fromA).toContain('the key is ***');
    expect(fromA).not.toContain(secretOfA);

    // B's server sends the same text: for B it is data like any other, sent unchanged.
    const fromB = resultText(await b.callTool('beta__echo', { text }));
    expect(fromB).toContain(text);

    // What /mcp and the CLI print goes through the runtime's own secrets too.
    expect(a.secrets.redact(text)).toBe('the key is ***');
    expect(b.secrets.redact(text)).toBe(text);
    expect(a.secrets).not.toBe(b.secrets);
  });
});
