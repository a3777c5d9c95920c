import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger, nullLogger } from '../../../src/logger.ts';
import { SecretValues } from '../../../src/redact/index.ts';

let dir: string;
let file: string;
const lines = () => readFileSync(file, 'utf8').trimEnd().split('\n');

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pi-mcp-logger-'));
  file = join(dir, 'nested', 'pi-mcp-actors.log');
});
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

describe('createLogger', () => {
  it('writes leveled lines with time, level, scope and fields, creating the folder', () => {
    const log = createLogger({ known: new SecretValues(), file, level: 'debug' });
    log.info('session started', { servers: 3 });
    log.child('server:github').child('connect').warn('slow', { ms: 1200 });
    const [first, second] = lines();
    expect(first).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z INFO {2}session started \{"servers":3\}$/);
    expect(second).toMatch(/ WARN {2}\[server:github\/connect\] slow \{"ms":1200\}$/);
  });

  it('writes no escape sequence, control character or bidi override (a `tail -f` stays safe)', () => {
    const log = createLogger({ known: new SecretValues(), file });
    const evil = 'x\u001b]52;c;Y3VybA==\u0007\u001b]0;pwned\u0007\u001b[2K\u202eevil\u009b2J';
    log.warn(`server said ${evil}`, { stderr: evil });
    const [line] = lines();
    expect(line).toContain('WARN  server said xevil {"stderr":');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for control characters
    expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e]/);
  });

  it('drops lines below its level (info by default)', () => {
    const log = createLogger({ known: new SecretValues(), file });
    log.debug('hidden');
    log.info('shown');
    log.error('also shown');
    expect(lines().map((line) => line.split(' ').slice(1).join(' '))).toEqual([
      'INFO  shown',
      'ERROR also shown',
    ]);
  });

  it('keeps one entry per line', () => {
    createLogger({ known: new SecretValues(), file }).error('first\nsecond');
    expect(lines()).toHaveLength(1);
    expect(lines()[0]).toContain('first\\nsecond');
  });

  it('redacts secret values, Bearer tokens and secret-looking fields before writing', () => {
    const log = createLogger({ known: new SecretValues(), file, secrets: () => ['ghp_live_secret_0001'] });
    log.info('spawn with ghp_live_secret_0001', {
      env: { GITHUB_TOKEN: 'whatever-value-9' },
      headers: { 'X-Key': 'header-value-7' },
      apiKey: 'api-key-value-5',
      note: 'Authorization: Bearer abcdefghijklmnop',
      error: new Error('failed for ghp_live_secret_0001'),
    });
    const text = readFileSync(file, 'utf8');
    for (const secret of [
      'ghp_live_secret_0001',
      'whatever-value-9',
      'header-value-7',
      'api-key-value-5',
      'abcdefghijklmnop',
    ]) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain('"GITHUB_TOKEN":"***"');
    expect(text).toContain('"error":{"name":"Error","message":"failed for ***"}');
  });

  it('rotates to <file>.1 past maxBytes, keeping one old file', () => {
    const log = createLogger({ known: new SecretValues(), file, maxBytes: 300 });
    for (let i = 0; i < 30; i++) log.info(`line ${i} ${'x'.repeat(40)}`);
    expect(existsSync(`${file}.1`)).toBe(true);
    expect(statSync(file).size).toBeLessThanOrEqual(300);
    expect(statSync(`${file}.1`).size).toBeLessThanOrEqual(300);
    expect(lines().at(-1)).toContain('line 29');
    expect(readFileSync(`${file}.1`, 'utf8')).not.toContain('line 0 ');
  });

  it('picks up the size of an existing file', () => {
    writeFileSync(file.replace('nested/', ''), 'x'.repeat(290));
    const log = createLogger({ known: new SecretValues(), file: file.replace('nested/', ''), maxBytes: 300 });
    log.info('pushes it over');
    expect(existsSync(`${file.replace('nested/', '')}.1`)).toBe(true);
  });

  it('never throws and never touches stdout or stderr, even when it cannot write', () => {
    const stdout = vi.spyOn(process.stdout, 'write');
    const stderr = vi.spyOn(process.stderr, 'write');
    writeFileSync(join(dir, 'a-file'), 'not a directory');
    const log = createLogger({
      known: new SecretValues(),
      file: join(dir, 'a-file', 'log.txt'),
      secrets: () => {
        throw new Error('secrets broke');
      },
    });
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(() => {
      log.error('cannot be written', { circular, big: 10n });
      log.child('x').warn('still fine');
    }).not.toThrow();
    expect(stdout).not.toHaveBeenCalled();
    expect(stderr).not.toHaveBeenCalled();
  });

  it('writes a circular reference as a marker, keeping the rest of the fields', () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    createLogger({ known: new SecretValues(), file }).info('odd', { circular, big: 10n });
    expect(lines()[0]).toContain('{"circular":{"self":"[circular]"},"big":"10"}');
  });
});

describe('nullLogger', () => {
  it('accepts everything and writes nothing', () => {
    expect(() => {
      nullLogger.info('x');
      nullLogger.child('y').error('z', { a: 1 });
    }).not.toThrow();
    expect(nullLogger.child('y')).toBe(nullLogger);
  });
});
