// Resource templates through the whole extension (bridgePi on a recording Pi, real config files):
// server-everything's templates over real stdio are found by ToolSearch and read with their variable
// filled in; our fixture adds a template at runtime (resources/list_changed) and the new tool, the
// cache, /mcp and exposeResources follow.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { waitFor } from 'xstate';
import { connectMcp } from '../../src/adapters/mcp/index.ts';
import { bridgePi, type PiBridge } from '../../src/adapters/pi/bridge.ts';
import { EVERYTHING_ENTRY, fixtureServerProcesses, stdioFixture } from '../fixtures/servers/spawn.ts';
import { stopHostsUnder } from '../support/hosts.ts';
import { RecordingPi } from '../support/recording-pi.ts';

let root: string;
let agentDir: string;
let project: string;
const bridges: PiBridge[] = [];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'pi-mcp-templates-'));
  agentDir = join(root, 'agent');
  project = join(root, 'project');
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(project, { recursive: true });
});

afterEach(async () => {
  for (const bridge of bridges.splice(0)) {
    const runtime = await bridge.runtime();
    await runtime.stop();
    runtime.dispose();
  }
  // The servers ran in the shared host the sessions started: stopping it ends them.
  await stopHostsUnder(root);
  expect(fixtureServerProcesses()).toEqual([]);
  rmSync(root, { recursive: true, force: true });
});

async function boot(servers: Record<string, unknown>) {
  writeFileSync(join(agentDir, 'mcp.json'), JSON.stringify({ mcpServers: servers }));
  const pi = new RecordingPi(project);
  const bridge = bridgePi(pi, {
    connector: connectMcp,
    env: { PI_CODING_AGENT_DIR: agentDir },
    homeDir: root,
  });
  bridges.push(bridge);
  await pi.emit('session_start', {});
  return { pi, runtime: await bridge.runtime() };
}

const text = (result: { content: Array<{ type: string; text?: string }> }) =>
  result.content.map((c) => c.text ?? '').join('\n');

describe('server-everything resource templates over stdio', () => {
  it('are listed, found by ToolSearch, and read with the variable filled in; a missing one is explained', async () => {
    const { pi, runtime } = await boot({
      everything: { command: process.execPath, args: [EVERYTHING_ENTRY] },
    });
    await waitFor(runtime.actor, (s) => (s.context.catalogs.everything?.resourceTemplates?.length ?? 0) > 0, {
      timeout: 30_000,
    });
    expect(runtime.actor.getSnapshot().context.catalogs.everything?.resourceTemplates).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ uriTemplate: 'demo://resource/dynamic/text/{resourceId}' }),
        expect.objectContaining({ uriTemplate: 'demo://resource/dynamic/blob/{resourceId}' }),
      ]),
    );
    const textTool = pi.tools.get('everything__read_dynamic_text_resource')!;
    expect(textTool.exposure).toBe('deferred');
    expect(textTool.parameters).toMatchObject({
      properties: { resourceId: { type: 'string' } },
      required: ['resourceId'],
    });

    const found = await pi.callTool('ToolSearch', { query: 'dynamic text resource template' });
    expect(text(found)).toContain('everything__read_dynamic_text_resource');
    expect(pi.activeMcp()).toContain('everything__read_dynamic_text_resource');

    const read = await pi.callTool('everything__read_dynamic_text_resource', { resourceId: '7' });
    expect(read.isError).toBeFalsy();
    expect(text(read)).toContain('Resource 7: This is a plaintext resource');
    expect(text(read)).toContain('demo://resource/dynamic/text/7');

    // The blob template answers base64; it reaches the model rendered like any resource blob.
    const blob = await pi.callTool('everything__read_dynamic_blob_resource', { resourceId: '3' });
    expect(blob.isError).toBeFalsy();
    expect(text(blob)).toContain('Resource 3: This is a base64 blob');

    const missing = await pi.callTool('everything__read_dynamic_text_resource', {});
    expect(missing.isError).toBe(true);
    expect(text(missing)).toContain(
      'everything__read_dynamic_text_resource is missing the required argument "resourceId" (the variable of demo://resource/dynamic/text/{resourceId}).',
    );
    expect(text(missing)).toContain('everything__read_dynamic_text_resource({"resourceId":"…"})');

    const tools = await pi.command('mcp', 'tools everything');
    expect(tools).toContain(
      'everything__read_dynamic_text_resource [loaded] Read a resource from the URI template demo://resource/dynamic/text/{resourceId}',
    );
    const server = await pi.command('mcp', 'everything');
    expect(server).toContain('Resource templates:');
    expect(server).toContain(
      'everything__read_dynamic_text_resource — demo://resource/dynamic/text/{resourceId}',
    );
  });
});

describe('templates of our fixture', () => {
  it('a template added at runtime becomes a tool; reads expand every operator; the cache keeps the templates', async () => {
    const { pi, runtime } = await boot({ live: stdioFixture(['--list-changed', '--templates']) });
    await waitFor(runtime.actor, (s) => Boolean(s.context.catalogs.live));
    const description = pi.tools.get('ToolSearch')!.description;
    expect(pi.tools.has('live__read_doc_by_id')).toBe(true);

    const doc = await pi.callTool('live__read_doc_by_id', { id: '2 / 3' });
    expect(text(doc)).toContain('contents of fixture://doc/2%20%2F%203');
    const search = await pi.callTool('live__read_search', { q: 'a&b' });
    expect(text(search)).toContain('contents of fixture://search?q=a%26b');
    expect(text(await pi.callTool('live__read_search', {}))).toContain('contents of fixture://search');
    const file = await pi.callTool('live__read_file', { path: 'src/a b.ts' });
    expect(text(file)).toContain('contents of fixture://files/src/a%20b.ts');

    await pi.callTool('ToolSearch', { query: 'select:live__add_template' });
    expect(text(await pi.callTool('live__add_template', {}))).toBe('added added-template-1');
    await waitFor(
      runtime.actor,
      (s) => s.context.catalogs.live?.resourceTemplates?.some((t) => t.name === 'added-template-1') ?? false,
    );
    const added = pi.tools.get('live__read_added_template_1')!;
    expect(added.exposure).toBe('deferred');
    expect(added.parameters).toMatchObject({ required: ['item'] });
    expect(pi.tools.get('ToolSearch')!.description).toBe(description);
    const found = await pi.callTool('ToolSearch', { query: 'select:live__read_added_template_1' });
    expect(text(found)).toContain('live__read_added_template_1');
    expect(text(await pi.callTool('live__read_added_template_1', { item: 'x' }))).toContain(
      'contents of fixture://added-template/1/x',
    );

    const cacheFile = join(agentDir, 'mcp-cache.json');
    await vi.waitFor(() => {
      expect(existsSync(cacheFile)).toBe(true);
      const cached = JSON.parse(readFileSync(cacheFile, 'utf8')).servers.live;
      expect(cached.resourceTemplates.map((t: { name: string }) => t.name)).toEqual([
        'doc-by-id',
        'search',
        'file',
        'added-template-1',
      ]);
    });

    // The next session knows the templates from the cache before the (lazy) server starts.
    const next = await boot({
      live: { ...stdioFixture(['--list-changed', '--templates']), lifecycle: 'lazy' },
    });
    expect(next.pi.tools.get('live__read_added_template_1')?.parameters).toMatchObject({
      required: ['item'],
    });
    expect(next.runtime.servers().live!.getSnapshot().context.connection).toBeUndefined();
  });

  it('exposeResources: false hides templates as it hides resources', async () => {
    const { pi, runtime } = await boot({
      quiet: { ...stdioFixture(['--templates']), exposeResources: false },
    });
    await waitFor(runtime.actor, (s) => Boolean(s.context.catalogs.quiet));
    expect(runtime.actor.getSnapshot().context.catalogs.quiet?.resourceTemplates).toHaveLength(3);
    expect([...pi.tools.keys()].filter((n) => n.startsWith('quiet__read_'))).toEqual([]);
    expect(pi.tools.has('quiet__echo')).toBe(true);
  });
});
