// The one key policy, seen from every channel: a value under a secret name is hidden the same way in
// a log line, an inspector event and an error we word, and left alone in a server's data going to the
// model (DESIGN rule 6: only known secret values are removed there).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { redactInspectionEvent } from '../../src/inspect/redact-event.ts';
import { createLogger } from '../../src/logger.ts';
import { createRedactor, REDACTED, SecretValues } from '../../src/redact/index.ts';
import { errorResult } from '../../src/tools/executor.ts';

const VALUE = 'q8Zr2nVx0pLw7Tk3';

/** Names the policy calls secret, the formerly disputed ones included (auth, session, signature, passphrase, code_verifier, bearer). */
const SECRET_KEYS = [
  'token',
  'access_token',
  'refresh_token',
  'password',
  'passphrase',
  'client_secret',
  'api_key',
  'apiKey',
  'authorization',
  'bearer',
  'cookie',
  'code_verifier',
  'private_key',
  'credential',
  'auth',
  'session',
  'signature',
];

let dir: string;
let secrets: SecretValues;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pi-mcp-redact-channels-'));
  secrets = new SecretValues();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function logLine(key: string): string {
  const file = join(dir, `${key}.log`);
  createLogger({ file, known: secrets }).info('calling', { [key]: VALUE });
  return readFileSync(file, 'utf8');
}

function inspectorEvent(key: string): unknown {
  const event = redactInspectionEvent(
    { type: '@xstate.event', event: { type: 'CALL', [key]: VALUE } },
    createRedactor(secrets),
  );
  return (event.event as Record<string, unknown>)[key];
}

function errorText(key: string): string {
  const result = errorResult(`the server refused ${key}=${VALUE}`, secrets);
  return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

describe.each(SECRET_KEYS)('a value under "%s"', (key) => {
  it('is hidden in a log line', () => {
    const line = logLine(key);
    expect(line).not.toContain(VALUE);
    expect(line).toContain(`"${key}":"${REDACTED}"`);
  });

  it('is hidden in an inspector event', () => {
    expect(inspectorEvent(key)).toBe(REDACTED);
  });

  it('is hidden in an error we word', () => {
    expect(errorText(key)).toBe(`the server refused ${key}=${REDACTED}`);
  });

  it("is left alone in a server's data (it is no known secret)", () => {
    expect(secrets.redactKnownDeep({ [key]: VALUE, text: `${key}=${VALUE}` })).toEqual({
      [key]: VALUE,
      text: `${key}=${VALUE}`,
    });
  });
});

describe('a name the policy does not call secret', () => {
  it('keeps its value on every channel', () => {
    for (const key of ['server', 'tool', 'region']) {
      expect(logLine(key)).toContain(VALUE);
      expect(inspectorEvent(key)).toBe(VALUE);
      expect(errorText(key)).toContain(VALUE);
    }
  });
});
