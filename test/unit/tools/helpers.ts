import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult, ReadResourceResult } from '../../../src/ports/mcp.ts';

/** Real results captured from server-everything by fixtures/capture-everything.ts. */
export const everything = JSON.parse(
  readFileSync(new URL('./fixtures/everything-results.json', import.meta.url), 'utf8'),
) as Record<string, CallToolResult & ReadResourceResult & Record<string, unknown>>;

export function everythingResult(key: string): CallToolResult & ReadResourceResult {
  const result = everything[key];
  if (!result) throw new Error(`no captured result "${key}"`);
  return structuredClone(result);
}

export function makeTempDir(): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'pi-mcp-tools-test-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function fileMode(path: string): number {
  return statSync(path).mode & 0o777;
}

/** The paths named after "saved to" / "saved in" in a text. */
export function savedPaths(text: string): string[] {
  return [...text.matchAll(/saved (?:to|in) (\/\S+?)(?=[;,)\]\s]|$)/g)].map((m) => m[1]!);
}
