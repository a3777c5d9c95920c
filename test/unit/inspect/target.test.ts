import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inspectTargetFrom, isLoopbackHost, parseInspectTarget } from '../../../src/inspect/inspector.ts';

describe('parseInspectTarget', () => {
  it.each([
    'ws://127.0.0.1:9000/ws?token=abc',
    'ws://127.5.6.7:9000/',
    'ws://localhost:9000/ws',
    'ws://[::1]:9000/ws',
    'wss://127.0.0.1:9443/ws',
  ])('accepts the loopback WebSocket %s', (url) => {
    const parsed = parseInspectTarget(url);
    expect(parsed).toEqual({ ok: true, target: { kind: 'websocket', url: new URL(url).toString() } });
  });

  it.each([
    ['ws://0.0.0.0:9000/', '0.0.0.0'],
    ['ws://192.168.1.20:9000/', '192.168.1.20'],
    ['ws://128.0.0.1:9000/', '128.0.0.1'],
    ['ws://example.com/ws', 'example.com'],
    ['ws://127.0.0.1.evil.example/ws', '127.0.0.1.evil.example'],
    ['ws://localhost.evil.example/ws', 'localhost.evil.example'],
    ['wss://stately.ai/inspect', 'stately.ai'],
    ['ws://[::2]:9000/', '[::2]'],
  ])('refuses the non-loopback WebSocket %s with a clear message', (url, host) => {
    const parsed = parseInspectTarget(url);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.error).toContain(`Refusing to send inspection events to "${host}"`);
    expect(parsed.error).toContain('only loopback addresses (127.0.0.0/8, ::1, localhost) are allowed');
  });

  it('refuses other URL schemes and credentials in the URL', () => {
    const http = parseInspectTarget('http://127.0.0.1:9000/');
    expect(http.ok).toBe(false);
    if (!http.ok) expect(http.error).toMatch(/only ws:\/\/ URLs and file paths/);
    const creds = parseInspectTarget('ws://user:pw@127.0.0.1:9000/');
    expect(creds.ok).toBe(false);
    if (!creds.ok) expect(creds.error).not.toContain('pw@');
  });

  it('treats anything else as a JSONL file, resolved to an absolute path', () => {
    expect(parseInspectTarget('/tmp/events.jsonl')).toEqual({
      ok: true,
      target: { kind: 'jsonl', file: '/tmp/events.jsonl' },
    });
    expect(parseInspectTarget('logs/events.jsonl')).toEqual({
      ok: true,
      target: { kind: 'jsonl', file: resolve('logs/events.jsonl') },
    });
    expect(parseInspectTarget('file:///tmp/a%20b.jsonl')).toEqual({
      ok: true,
      target: { kind: 'jsonl', file: '/tmp/a b.jsonl' },
    });
    expect(parseInspectTarget('file:rel.jsonl')).toEqual({
      ok: true,
      target: { kind: 'jsonl', file: resolve('rel.jsonl') },
    });
  });

  it('refuses an empty target', () => {
    expect(parseInspectTarget('  ').ok).toBe(false);
  });
});

describe('isLoopbackHost', () => {
  it('knows 127.0.0.0/8, ::1 and localhost, nothing else', () => {
    expect(
      ['127.0.0.1', '127.255.255.254', 'localhost', 'LOCALHOST', '[::1]', '::1'].every(isLoopbackHost),
    ).toBe(true);
    expect(['127.0.0.256', '10.0.0.1', '::', 'localhost.', '0x7f.0.0.1', ''].some(isLoopbackHost)).toBe(
      false,
    );
  });
});

describe('inspectTargetFrom', () => {
  it('is off when neither the flag nor PI_MCP_INSPECT is set, or when set to an off value', () => {
    expect(inspectTargetFrom({}, undefined)).toEqual({ ok: true, target: undefined, source: undefined });
    expect(inspectTargetFrom({ PI_MCP_INSPECT: '0' }, undefined)).toEqual({
      ok: true,
      target: undefined,
      source: 'env',
    });
    expect(inspectTargetFrom({ PI_MCP_INSPECT: '' }, false)).toEqual({
      ok: true,
      target: undefined,
      source: 'env',
    });
  });

  it('reads PI_MCP_INSPECT, and the flag wins over it', () => {
    const env = { PI_MCP_INSPECT: 'ws://127.0.0.1:7000/ws' };
    expect(inspectTargetFrom(env, undefined)).toEqual({
      ok: true,
      source: 'env',
      target: { kind: 'websocket', url: 'ws://127.0.0.1:7000/ws' },
    });
    expect(inspectTargetFrom(env, '/tmp/x.jsonl')).toEqual({
      ok: true,
      source: 'flag',
      target: { kind: 'jsonl', file: '/tmp/x.jsonl' },
    });
  });

  it('says which setting is wrong', () => {
    const env = inspectTargetFrom({ PI_MCP_INSPECT: 'ws://10.1.2.3:7000/' }, undefined);
    expect(env).toMatchObject({ ok: false, source: 'env' });
    if (!env.ok)
      expect(env.error).toMatch(/^PI_MCP_INSPECT: Refusing to send inspection events to "10\.1\.2\.3"/);
    const flag = inspectTargetFrom({}, 'ws://example.com/');
    if (flag.ok) throw new Error('expected a refusal');
    expect(flag.error).toMatch(/^--mcp-inspect: Refusing/);
  });

  it('refuses "on" without a target instead of writing a file named 1', () => {
    const on = inspectTargetFrom({ PI_MCP_INSPECT: '1' }, undefined);
    expect(on.ok).toBe(false);
    if (!on.ok) expect(on.error).toContain('does not say where to send events');
    const bareFlag = inspectTargetFrom({}, true);
    expect(bareFlag.ok).toBe(false);
    if (!bareFlag.ok) expect(bareFlag.error).toContain('--mcp-inspect needs a target');
  });
});
