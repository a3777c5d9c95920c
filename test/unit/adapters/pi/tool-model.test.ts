import { describe, expect, it } from 'vitest';
import { piToolModel, wantsCodemode } from '../../../../src/adapters/pi/tool-model.ts';
import type { CatalogEntry } from '../../../../src/catalog/catalog.ts';
import { definition } from '../../../support/config.ts';

function entry(overrides: Partial<CatalogEntry> = {}): CatalogEntry {
  return {
    name: 'docs__search',
    server: 'docs',
    tool: 'search',
    kind: 'tool',
    description: 'Search the docs',
    inputSchema: { type: 'object', properties: {} },
    exposure: 'deferred',
    ...overrides,
  };
}

describe("Pi's tool model for MCP tools", () => {
  it('direct tools are Pi direct; deferred and codemode ones are Pi deferred (callable from codemode)', () => {
    expect(piToolModel(entry({ exposure: 'direct' }), undefined).exposure).toBe('direct');
    expect(piToolModel(entry({ exposure: 'deferred' }), undefined).exposure).toBe('deferred');
    expect(piToolModel(entry({ exposure: 'codemode' }), undefined).exposure).toBe('deferred');
  });

  it('one namespace per server, found by its name or mcp__<server>, described by the config', () => {
    const server = definition({ name: 'docs', description: 'Product documentation' });
    expect(piToolModel(entry(), server).namespace).toEqual({
      name: 'docs',
      aliases: ['mcp__docs'],
      description: 'Product documentation',
    });
  });

  it("carries the server's MCP annotations; resource and resource template tools are read-only", () => {
    const hints = { readOnlyHint: false, destructiveHint: true };
    expect(piToolModel(entry({ annotations: hints }), undefined).annotations).toEqual(hints);
    expect(piToolModel(entry(), undefined).annotations).toBeUndefined();
    expect(piToolModel(entry({ kind: 'resource', uri: 'file:///a' }), undefined).annotations).toEqual({
      readOnlyHint: true,
    });
    const template = entry({ kind: 'template', uriTemplate: 'file:///{path}' });
    expect(piToolModel(template, undefined).annotations).toEqual({ readOnlyHint: true });
  });

  it('codemode is wanted when a server or one of its tools has codemode exposure', () => {
    expect(wantsCodemode([definition()])).toBe(false);
    expect(wantsCodemode([definition({ exposure: 'codemode' })])).toBe(true);
    expect(wantsCodemode([definition({ toolExposure: [{ pattern: 'a*', exposure: 'codemode' }] })])).toBe(
      true,
    );
  });
});
