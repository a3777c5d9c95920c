// The start record on its own: what save keeps and what match accepts, over real files in a temp folder.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createStartRecords, recordingInputs, startKey } from '../../../../src/adapters/pi/start-record.ts';

const NOW = Date.now();
let dir: string;
let configFile: string;
let cacheFile: string;
let recordFile: string;

const writeCache = (tools: string[], cachedAt = NOW) =>
  writeFileSync(
    cacheFile,
    JSON.stringify({
      version: 1,
      servers: { notes: { configHash: 'h', tools: tools.map((name) => ({ name })), cachedAt } },
    }),
  );

/** A "load": reads the config through the recording seam, as the bridge does. */
function load(env: Record<string, string | undefined>) {
  const seen = recordingInputs(env);
  seen.readFile(configFile);
  void seen.env.TOKEN;
  return seen.inputs()!;
}

const key = startKey({ cwd: '/p', homeDir: '/h', projectTrusted: true });

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'start-record-'));
  configFile = join(dir, 'mcp.json');
  cacheFile = join(dir, 'mcp-cache.json');
  recordFile = join(dir, 'mcp-start.json');
  writeFileSync(configFile, '{"mcpServers":{"notes":{"command":"notes"}}}');
  writeCache(['add_note']);
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('createStartRecords', () => {
  it('keeps a start and gives it back while nothing changed, with the config texts it read', async () => {
    const records = createStartRecords(recordFile, cacheFile);
    const seen = records.seeCache(['notes'], NOW);
    await records.save(key, load({ TOKEN: 'secret-value-1' }), seen, 'ToolSearch: notes (1)');
    const match = records.match(key, { TOKEN: 'secret-value-1' }, NOW);
    expect(match?.description).toBe('ToolSearch: notes (1)');
    expect(match?.texts.get(configFile)).toBe(readFileSync(configFile, 'utf8'));
    expect(readFileSync(recordFile, 'utf8')).not.toContain('secret-value-1');
    expect(
      records.match(startKey({ cwd: '/other', homeDir: '/h', projectTrusted: true }), {}, NOW),
    ).toBeUndefined();
  });

  it('refuses a changed config text, environment value or cache entry', async () => {
    const records = createStartRecords(recordFile, cacheFile);
    const seen = records.seeCache(['notes'], NOW);
    await records.save(key, load({ TOKEN: 'a' }), seen, 'd');
    expect(records.match(key, { TOKEN: 'b' }, NOW)).toBeUndefined();
    writeCache(['add_note', 'purge_notes']);
    expect(records.match(key, { TOKEN: 'a' }, NOW)).toBeUndefined();
    writeCache(['add_note'], NOW + 5);
    // The same entries rewritten: still a match, and its new signature is saved.
    const again = records.match(key, { TOKEN: 'a' }, NOW);
    expect(again?.description).toBe('d');
    expect(again?.refresh).toBeDefined();
    writeFileSync(configFile, '{"mcpServers":{}}');
    expect(records.match(key, { TOKEN: 'a' }, NOW)).toBeUndefined();
  });

  it('reads the cache as the cache does: a file of another format version has no entries', async () => {
    const records = createStartRecords(recordFile, cacheFile);
    await records.save(key, load({}), records.seeCache(['notes'], NOW), 'built from add_note');
    const text = readFileSync(cacheFile, 'utf8');
    writeFileSync(cacheFile, text.replace('"version":1', '"version":2'));
    expect(records.match(key, {}, NOW)).toBeUndefined();
    writeFileSync(cacheFile, text);
    expect(records.match(key, {}, NOW)?.description).toBe('built from add_note');
  });

  it('an entry past its own ttl is stale for the record as for the cache', async () => {
    const text = readFileSync(cacheFile, 'utf8');
    writeFileSync(cacheFile, text.replace('"cachedAt"', '"ttlMs":1000,"cachedAt"'));
    const records = createStartRecords(recordFile, cacheFile);
    await records.save(key, load({}), records.seeCache(['notes'], NOW), 'fresh for a second');
    expect(records.match(key, {}, NOW + 999)?.description).toBe('fresh for a second');
    expect(records.match(key, {}, NOW + 1_000)).toBeUndefined();
  });

  it('does not save when the cache was replaced after the start read it', async () => {
    const records = createStartRecords(recordFile, cacheFile);
    const seen = records.seeCache(['notes'], NOW);
    writeCache(['add_note', 'purge_notes']);
    await records.save(key, load({}), seen, 'built from the old entries');
    expect(() => readFileSync(recordFile)).toThrow(/ENOENT/);
  });

  it('keeps nothing for a load that listed the whole environment', () => {
    const seen = recordingInputs({ A: '1' });
    expect(Object.keys(seen.env)).toEqual(['A']);
    expect(seen.inputs()).toBeUndefined();
  });
});
