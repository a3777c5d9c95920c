// The sign-in's browser opener: which authorization URLs reach the OS opener, and that the opener
// gets the URL as one argument with no shell in between (a real child process on PATH plays xdg-open).

import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openableUrl, openBrowser, openerCommand } from '../../../src/adapters/mcp/auth/browser.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('openableUrl', () => {
  it.each([
    ['https://auth.example.com/authorize?client_id=a&state=b', true],
    ['http://127.0.0.1:8123/authorize?x=1', true],
    ['http://localhost/authorize', true],
    ['http://[::1]:9000/authorize', true],
    ['http://auth.example.com/authorize', false],
    ['http://10.0.0.5/authorize', false],
    ['file:///etc/passwd', false],
    ['javascript:alert(1)', false],
    ['smb://attacker.example/share', false],
    ['ms-settings:', false],
    ['https://user:pass@auth.example.com/', false],
    ['not a url', false],
  ])('%s → %s', (url, expected) => {
    expect(openableUrl(url)).toBe(expected);
  });
});

describe('openerCommand', () => {
  const url = 'https://auth.example.com/authorize?a=1&b=^2|calc';

  it('Windows: url.dll through rundll32, never cmd', () => {
    expect(openerCommand(url, 'win32', {})).toEqual(['rundll32', 'url.dll,FileProtocolHandler', url]);
  });

  it('macOS: open; Linux: xdg-open only with a display', () => {
    expect(openerCommand(url, 'darwin', {})).toEqual(['open', url]);
    expect(openerCommand(url, 'linux', { DISPLAY: ':0' })).toEqual(['xdg-open', url]);
    expect(openerCommand(url, 'linux', {})).toBeUndefined();
  });
});

describe('openBrowser', () => {
  /** A fake xdg-open on PATH that writes the arguments it got, one per line. */
  function fakeOpener() {
    const dir = mkdtempSync(join(tmpdir(), 'opener-'));
    dirs.push(dir);
    const log = join(dir, 'args.txt');
    const script = join(dir, 'xdg-open');
    writeFileSync(script, `#!/bin/sh\nprintf '%s\\n' "$#" "$@" > '${log}.tmp' && mv '${log}.tmp' '${log}'\n`);
    chmodSync(script, 0o755);
    return { dir, log, env: { PATH: `${dir}:/usr/bin:/bin`, DISPLAY: ':0' } };
  }

  it('hands the URL to the opener as one argument: & ; $( ) and quotes stay text', async () => {
    const opener = fakeOpener();
    const mark = join(opener.dir, 'pwned');
    const url = `http://127.0.0.1:9/authorize?a=1&b=2;touch%20x&c=$(touch ${mark})&d='"`;
    expect(openBrowser(url, opener.env, 'linux')).toBe(true);
    await vi.waitFor(() => expect(existsSync(opener.log)).toBe(true), { timeout: 10_000, interval: 20 });
    expect(readFileSync(opener.log, 'utf8')).toBe(`1\n${url}\n`);
    expect(existsSync(mark)).toBe(false);
  });

  it('does not open a file:, custom-scheme or non-loopback http URL', () => {
    const opener = fakeOpener();
    for (const url of ['file:///etc/passwd', 'vscode://x/y', 'http://attacker.example/authorize']) {
      expect(openBrowser(url, opener.env, 'linux')).toBe(false);
    }
  });

  it('PI_MCP_NO_BROWSER keeps every URL in the terminal', () => {
    const opener = fakeOpener();
    expect(openBrowser('https://auth.example.com/', { ...opener.env, PI_MCP_NO_BROWSER: '1' }, 'linux')).toBe(
      false,
    );
  });
});
