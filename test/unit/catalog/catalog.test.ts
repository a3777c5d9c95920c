// Which tools exist, under which names, and which are direct: buildCatalog over resolved config.

import { describe, expect, it } from 'vitest';
import { buildCatalog, resourceToolName } from '../../../src/catalog/catalog.ts';
import { mayHaveDirectTools, resolveExposure } from '../../../src/catalog/exposure.ts';
import { searchIndexOf } from '../../../src/catalog/search.ts';
import type { DirectToolsSpec, ServerDefinition } from '../../../src/config/types.ts';
import type { ToolDescriptor } from '../../../src/ports/mcp.ts';
import { definition } from '../../support/config.ts';

const tools = (...names: string[]): ToolDescriptor[] =>
  names.map((name) => ({ name, description: `${name} does things`, inputSchema: { type: 'object' } }));

function catalog(servers: Array<[Partial<ServerDefinition>, ToolDescriptor[]]>, env?: DirectToolsSpec) {
  return buildCatalog(
    servers.map(([def, t]) => ({ definition: definition(def), tools: t })),
    { toolPrefix: 'server', ...(env ? { directToolsEnv: env } : {}) },
  );
}

const exposures = (c: ReturnType<typeof catalog>) =>
  Object.fromEntries(c.entries.map((e) => [e.name, e.exposure]));

describe('buildCatalog', () => {
  it('names tools <server>__<tool> and defers them by default', () => {
    const c = catalog([[{ name: 'git-hub' }, tools('create_issue', 'list_repos')]]);
    expect(exposures(c)).toEqual({ git_hub__create_issue: 'deferred', git_hub__list_repos: 'deferred' });
    expect(c.byName.get('git_hub__create_issue')).toMatchObject({
      server: 'git-hub',
      tool: 'create_issue',
      kind: 'tool',
    });
  });

  it('directTools: true makes every tool direct; a list makes those direct', () => {
    const c = catalog([
      [{ name: 'a', directTools: true }, tools('x', 'y')],
      [{ name: 'b', directTools: ['y'] }, tools('x', 'y')],
    ]);
    expect(exposures(c)).toEqual({ a__x: 'direct', a__y: 'direct', b__x: 'deferred', b__y: 'direct' });
  });

  it('MCP_DIRECT_TOOLS overrides directTools: *, server, server/tool, __none__', () => {
    const servers: Array<[Partial<ServerDefinition>, ToolDescriptor[]]> = [
      [{ name: 'a', directTools: true }, tools('x', 'y')],
      [{ name: 'b' }, tools('x', 'y')],
    ];
    expect(exposures(catalog(servers, { kind: 'none' }))).toEqual({
      a__x: 'deferred',
      a__y: 'deferred',
      b__x: 'deferred',
      b__y: 'deferred',
    });
    expect(exposures(catalog(servers, { kind: 'all' }))).toEqual({
      a__x: 'direct',
      a__y: 'direct',
      b__x: 'direct',
      b__y: 'direct',
    });
    const list: DirectToolsSpec = { kind: 'list', servers: ['b'], tools: [{ server: 'a', tool: 'y' }] };
    expect(exposures(catalog(servers, list))).toEqual({
      a__x: 'deferred',
      a__y: 'direct',
      b__x: 'direct',
      b__y: 'direct',
    });
  });

  it('hidden stays hidden whatever asks for direct; toolExposure: exact name beats patterns, first pattern wins', () => {
    const def: Partial<ServerDefinition> = {
      name: 's',
      exposure: 'hidden',
      directTools: true,
      toolExposure: [
        { pattern: 'read_*', exposure: 'deferred' },
        { pattern: 'read_secret', exposure: 'hidden' },
        { pattern: 'read_*', exposure: 'direct' },
      ],
    };
    const c = catalog([[def, tools('read_file', 'read_secret', 'write_file')]], { kind: 'all' });
    expect(exposures(c)).toEqual({ s__read_file: 'direct' });
    expect(resolveExposure(definition(def), 'write_file')).toBe('hidden');
  });

  it('includeTools and excludeTools filter by glob; excludeTools also takes the registered name', () => {
    const c = catalog([
      [
        { name: 'a', includeTools: ['get_*', 'list_*'], excludeTools: ['list_secrets'] },
        tools('get_x', 'list_y', 'list_secrets', 'delete_z'),
      ],
      [{ name: 'b', excludeTools: ['b__drop'] }, tools('keep', 'drop')],
    ]);
    expect(c.entries.map((e) => e.name)).toEqual(['a__get_x', 'a__list_y', 'b__keep']);
  });

  it('exposes resources as read_<name> tools when exposeResources is on', () => {
    const c = buildCatalog(
      [
        {
          definition: definition({ name: 'docs', exposeResources: true }),
          tools: tools('search'),
          resources: [{ uri: 'docs://guide/intro.md', name: 'Intro Guide', description: 'Start here' }],
        },
        {
          definition: definition({ name: 'quiet', exposeResources: false }),
          resources: [{ uri: 'x://1', name: 'one' }],
        },
      ],
      { toolPrefix: 'server' },
    );
    expect(c.byName.get('docs__read_intro_guide')).toMatchObject({
      kind: 'resource',
      uri: 'docs://guide/intro.md',
      description: 'Read resource docs://guide/intro.md: Start here',
    });
    expect(c.entries.some((e) => e.server === 'quiet')).toBe(false);
    expect(resourceToolName({ uri: 'a://b', name: '' })).toBe('read_a_b');
  });

  it('exposes resource templates as read_<name> tools whose parameters are the template variables', () => {
    const c = buildCatalog(
      [
        {
          definition: definition({ name: 'everything', exposeResources: true }),
          resources: [{ uri: 'demo://static/search', name: 'search' }],
          resourceTemplates: [
            {
              uriTemplate: 'demo://resource/dynamic/text/{resourceId}',
              name: 'Dynamic Text Resource',
              title: 'Dynamic text',
              description: 'Plaintext made from {resourceId}.',
              mimeType: 'text/plain',
            },
            { uriTemplate: 'repo://{owner}/{+path}{?ref,depth}', name: 'file' },
            { uriTemplate: 'demo://search{?q}', name: 'search' },
            { uriTemplate: 'demo://odd/{caf%C3%A9}', name: 'odd' },
          ],
        },
        {
          definition: definition({ name: 'quiet', exposeResources: false }),
          resourceTemplates: [{ uriTemplate: 'x://{id}', name: 'one' }],
        },
      ],
      { toolPrefix: 'server' },
    );
    expect(c.byName.get('everything__read_dynamic_text_resource')).toEqual({
      name: 'everything__read_dynamic_text_resource',
      server: 'everything',
      tool: 'read_dynamic_text_resource',
      kind: 'template',
      uriTemplate: 'demo://resource/dynamic/text/{resourceId}',
      title: 'Dynamic text',
      description:
        'Read a resource from the URI template demo://resource/dynamic/text/{resourceId} (text/plain): Plaintext made from {resourceId}.',
      inputSchema: {
        type: 'object',
        properties: {
          resourceId: {
            type: 'string',
            description: 'The {resourceId} part of demo://resource/dynamic/text/{resourceId}',
          },
        },
        required: ['resourceId'],
      },
      exposure: 'deferred',
    });
    const file = c.byName.get('everything__read_file')!;
    expect(Object.keys(file.inputSchema.properties as object)).toEqual(['owner', 'path', 'ref', 'depth']);
    expect(file.inputSchema.required).toEqual(['owner', 'path']);
    // A template named like a resource is left out, with a warning; the resource keeps the name.
    expect(c.byName.get('everything__read_search')).toMatchObject({ kind: 'resource' });
    expect(c.warnings).toContain(
      'everything: resource template demo://search{?q} not exposed: a tool is already named read_search',
    );
    expect(c.warnings).toContain(
      'everything: resource template demo://odd/{caf%C3%A9} not exposed: its variable "caf%C3%A9" cannot be a tool parameter name',
    );
    expect(c.byName.has('everything__read_odd')).toBe(false);
    expect(c.entries.some((e) => e.server === 'quiet')).toBe(false);
  });

  it('excludeTools and hidden exposure apply to resource templates by their read_ name', () => {
    const c = buildCatalog(
      [
        {
          definition: definition({ name: 'a', exposeResources: true, excludeTools: ['read_one'] }),
          resourceTemplates: [
            { uriTemplate: 'x://{id}', name: 'one' },
            { uriTemplate: 'y://{id}', name: 'two' },
          ],
        },
      ],
      { toolPrefix: 'server' },
    );
    expect(c.entries.map((e) => e.name)).toEqual(['a__read_two']);
  });

  it('keeps every name it gave before when the catalog grows, and names newcomers around them', () => {
    const first = buildCatalog([{ definition: definition({ name: 'a' }), tools: tools('run') }], {
      toolPrefix: 'none',
    });
    expect(first.entries.map((e) => e.name)).toEqual(['run']);
    const grown = buildCatalog(
      [
        { definition: definition({ name: 'a' }), tools: tools('run') },
        { definition: definition({ name: 'b' }), tools: tools('run') },
      ],
      { toolPrefix: 'none', previous: first },
    );
    expect(grown.byName.get('run')?.server).toBe('a');
    const other = grown.entries.find((e) => e.server === 'b')!;
    expect(other.name).toMatch(/^run_[0-9a-f]{6}$/);
  });

  it('never shadows a Pi builtin and says why', () => {
    const c = buildCatalog([{ definition: definition({ name: 'fs' }), tools: tools('read', 'bash') }], {
      toolPrefix: 'none',
    });
    expect(c.entries.map((e) => e.name).sort()).toEqual(
      expect.arrayContaining([expect.stringMatching(/^read_/), expect.stringMatching(/^bash_/)]),
    );
    expect(c.byName.has('read')).toBe(false);
    expect(c.warnings.join('\n')).toMatch(/read/);
  });

  it('builds the search index only when it is first used', () => {
    const c = catalog([[{ name: 'a' }, tools('take_screenshot', 'click')]]);
    expect(searchIndexOf(c).search('screenshot')[0]?.name).toBe('a__take_screenshot');
  });
});

describe('mayHaveDirectTools', () => {
  it('is true exactly when config or MCP_DIRECT_TOOLS can make one of the server’s tools direct', () => {
    expect(mayHaveDirectTools(definition({ name: 'a' }), undefined)).toBe(false);
    expect(mayHaveDirectTools(definition({ name: 'a', directTools: ['x'] }), undefined)).toBe(true);
    expect(mayHaveDirectTools(definition({ name: 'a', exposure: 'direct' }), undefined)).toBe(true);
    expect(
      mayHaveDirectTools(
        definition({ name: 'a', toolExposure: [{ pattern: 'x', exposure: 'direct' }] }),
        undefined,
      ),
    ).toBe(true);
    expect(mayHaveDirectTools(definition({ name: 'a', directTools: true }), { kind: 'none' })).toBe(false);
    expect(
      mayHaveDirectTools(definition({ name: 'a' }), {
        kind: 'list',
        servers: [],
        tools: [{ server: 'a', tool: 'x' }],
      }),
    ).toBe(true);
  });
});
