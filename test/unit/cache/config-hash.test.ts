import { describe, expect, it } from 'vitest';
import { configHash } from '../../../src/catalog/cache.ts';
import type { ServerDefinition } from '../../../src/config/types.ts';
import { definition } from '../../fixtures/cache/definition.ts';

const base = definition('github', {
  command: 'npx',
  args: ['-y', '@modelcontextprotocol/server-github'],
  env: { GITHUB_TOKEN: 'ghp_one', LOG: 'info' },
  cwd: '/work',
});

// Each identity field, changed to a different value. (The transport type is not one: pi-mcp-adapter's
// hash leaves it out, and the shared cache must agree with it.)
const identityChanges: Array<[string, Partial<ServerDefinition>]> = [
  ['command', { command: 'node' }],
  ['args', { args: ['-y', '@modelcontextprotocol/server-github@1.0.0'] }],
  ['args order', { args: ['@modelcontextprotocol/server-github', '-y'] }],
  ['env value', { env: { GITHUB_TOKEN: 'ghp_two', LOG: 'info' } }],
  ['env key added', { env: { GITHUB_TOKEN: 'ghp_one', LOG: 'info', EXTRA: '1' } }],
  ['cwd', { cwd: '/elsewhere' }],
  ['url', { url: 'https://example.invalid/mcp' }],
  ['headers', { headers: { 'X-Team': 'a' } }],
  ['auth', { auth: 'bearer' }],
  ['bearerToken', { bearerToken: 'secret' }],
  ['exposeResources', { exposeResources: false }],
  ['excludeTools', { excludeTools: ['delete_*'] }],
  ['includeTools', { includeTools: ['get_*'] }],
];

// Runtime-only fields: changing them keeps the cache valid.
const runtimeChanges: Array<[string, Partial<ServerDefinition>]> = [
  ['lifecycle', { lifecycle: 'keep-alive' }],
  ['idleTimeoutMs', { idleTimeoutMs: 0 }],
  ['debug', { debug: true }],
  ['startupTimeoutMs', { startupTimeoutMs: 5_000 }],
  ['requestTimeoutMs', { requestTimeoutMs: 1_000 }],
  ['description', { description: 'GitHub issues and PRs' }],
  ['directTools', { directTools: true }],
  ['exposure', { exposure: 'direct' }],
  ['toolPrefix', { toolPrefix: 'none' }],
  ['approveTools', { approveTools: true }],
  ['toolExposure', { toolExposure: [{ pattern: 'get_*', exposure: 'direct' }] }],
  ['source', { source: { file: '/p/.pi/mcp.json', kind: 'project', keyPath: 'mcpServers.github' } }],
];

describe('configHash', () => {
  it('is a SHA-256 hex digest, stable across calls', () => {
    expect(configHash(base)).toMatch(/^[0-9a-f]{64}$/);
    expect(configHash(base)).toBe(configHash({ ...base }));
  });

  it.each(identityChanges)('changes when %s changes', (_field, change) => {
    expect(configHash({ ...base, ...change })).not.toBe(configHash(base));
  });

  it.each(runtimeChanges)('does not change when %s changes', (_field, change) => {
    expect(configHash({ ...base, ...change })).toBe(configHash(base));
  });

  it('does not depend on the key order of env or headers', () => {
    const a = definition('s', { env: { A: '1', B: '2' }, headers: { X: '1', Y: '2' } });
    const b = definition('s', { env: { B: '2', A: '1' }, headers: { Y: '2', X: '1' } });
    expect(configHash(a)).toBe(configHash(b));
  });
});
