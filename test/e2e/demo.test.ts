// `npm run demo` (scripts/demo.ts) is the README's first command: it must run the real Pi with the
// bundled notes server and print the whole story.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../scripts/pi-paths.mjs';
import { ENSURE_PI_TIMEOUT_MS, ensurePi } from './harness/ensure-pi.ts';

beforeAll(ensurePi, ENSURE_PI_TIMEOUT_MS);

function runDemo(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const tsx = join(repoRoot, 'node_modules', 'tsx', 'dist', 'cli.mjs');
  const child = spawn(process.execPath, [tsx, join(repoRoot, 'scripts', 'demo.ts')], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }, 50_000);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('npm run demo', () => {
  it('searches, activates, calls the notes server, answers and shows /mcp', async () => {
    const { code, stdout, stderr } = await runDemo();
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/── Turn 1: 5 tools offered, \d+ tokens \(o200k/);
    expect(stdout).toContain('No MCP tool is declared: every one waits behind ToolSearch.');
    expect(stdout).toContain('ToolSearch({"query":"add note"})');
    expect(stdout).toContain('- notes__add_note: Save a note with a title, text and optional tags.');
    expect(stdout).toMatch(/── Turn 2: activated \d+ tool\(s\), \+\d+ tokens/);
    expect(stdout).toMatch(/notes__add_note\(title: string, text: string, tags\?: string\[\]\) +\d+ tokens/);
    expect(stdout).toContain('Saved note #1 "MCP in Pi" (18 words).');
    // The server ran in the shared host the demo's session started (the default).
    expect(stdout).toMatch(
      /── \/mcp ─+\n {4}notes: connected, shared \(host pid \d+\) — lazy, stdio, 5 tools/,
    );
    expect(stdout).toMatch(/Pi exited; the notes server stays warm in the shared host \(pid \d+\)/);
    expect(stdout).not.toContain('WARNING');
  }, 60_000);
});
