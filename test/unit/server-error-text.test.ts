import { describe, expect, it } from 'vitest';
import type { ServerErrorDetail } from '../../src/ports/server-state.ts';
import { serverErrorText, startupTimeoutText } from '../../src/server-error-text.ts';

describe('serverErrorText', () => {
  it.each<[ServerErrorDetail, string]>([
    [{ cause: 'connect', message: 'Server "x" answered HTTP 500' }, 'Server "x" answered HTTP 500'],
    [{ cause: 'startupTimeout', ms: 1_500 }, 'did not finish starting within 1.5 s'],
    [{ cause: 'startupTimeout', ms: 400 }, 'did not finish starting within 400 ms'],
    [{ cause: 'connectionLost' }, 'connection lost'],
    [{ cause: 'connectionLost', reason: 'exited with code 1' }, 'connection lost: exited with code 1'],
    [
      { cause: 'healthCheckFailed', message: 'ping failed: EPIPE' },
      'connection lost: the health check failed (ping failed: EPIPE)',
    ],
    [{ cause: 'healthCheckTimeout', ms: 10_000 }, 'connection lost: no answer to a health check within 10 s'],
    [
      { cause: 'refreshFailed', list: 'tools', message: 'Method not found' },
      'refreshing the tools list failed: Method not found',
    ],
  ])('words %j', (detail, text) => {
    expect(serverErrorText({ detail })).toBe(text);
  });

  it('says nothing when there is no error', () => {
    expect(serverErrorText(undefined)).toBe('');
  });

  it('words a start-up timeout the same whether the machine or the connection adapter saw it', () => {
    expect(serverErrorText({ detail: { cause: 'startupTimeout', ms: 30_000 } })).toBe(
      startupTimeoutText(30_000),
    );
  });
});
