// `settings.autoAuth` (pi-mcp-adapter's key) in the real Pi against the OAuth fixture: in RPC mode (a
// UI) a call, or a ToolSearch, that finds the server waiting for a sign-in starts /mcp-auth's sign-in
// (the URL in a notification; the test plays the browser) and runs once more; in print mode the call
// fails with the error naming /mcp-auth and no authorization is started. With a desktop (DISPLAY and a
// fake xdg-open on PATH), the model's ToolSearch opens a loopback authorization URL, and only prints
// one that is plain http to another host.

import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { followAuthorization, type OAuthFixture, startOAuthFixture } from '../fixtures/oauth/start.ts';
import { ENSURE_PI_TIMEOUT_MS, ensurePi } from './harness/ensure-pi.ts';
import { EXTENSION, TOOL_SEARCH, toolResultFor, writeWarmCache } from './harness/mcp.ts';
import { runPiPrint, startPiRpc } from './harness/run-pi.ts';
import { createWorld, type World } from './harness/world.ts';

let oauth: OAuthFixture;
let world: World | undefined;

beforeAll(async () => {
  await ensurePi();
  oauth = await startOAuthFixture();
}, ENSURE_PI_TIMEOUT_MS);
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});
afterAll(async () => {
  await oauth?.stop();
});

const WHOAMI = { name: 'whoami', description: 'Who the token belongs to.', inputSchema: { type: 'object' } };
const mcpJson = () => ({
  mcpServers: { linear: { url: oauth.url, auth: 'oauth' } },
  settings: { autoAuth: true },
});
const search = (query: string) => ({
  toolCalls: [{ id: 'call_search', name: TOOL_SEARCH, arguments: { query } }],
});
const whoami = { toolCalls: [{ id: 'call_whoami', name: 'linear__whoami', arguments: {} }] };

/** Prompts over RPC and plays the browser for the sign-in notification it expects on the way. */
async function promptSigningIn(w: World, prompt: string): Promise<void> {
  const rpc = await startPiRpc({ dir: w.dir, extensions: [EXTENSION] });
  try {
    const run = rpc.promptAndWait(prompt, { timeoutMs: 180_000 });
    const shown = await Promise.race([
      rpc.waitForRecord(
        (r) =>
          r.type === 'extension_ui_request' &&
          r.method === 'notify' &&
          String(r.message).startsWith('Sign in to linear'),
        { timeoutMs: 120_000 },
      ),
      run.then(() => {
        throw new Error('the run ended without asking to sign in');
      }),
    ]);
    const url = /^(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)$/m.exec(String(shown.message))?.[1];
    expect(url).toBeDefined();
    await followAuthorization(url!);
    expect((await run).response.success).toBe(true);
  } finally {
    await rpc.close();
  }
}

describe('settings.autoAuth in the real Pi', () => {
  it('a call to a server waiting for a sign-in signs in (as /mcp-auth) and is replayed once', async () => {
    world = await createWorld({
      mcpJson: mcpJson(),
      script: [search('select:linear__whoami'), whoami, { text: 'Signed in on the way.' }],
    });
    await writeWarmCache(world.dir, { linear: [WHOAMI] });
    const before = (await oauth.stats()).authorizations;
    await promptSigningIn(world, 'Who am I on linear?');
    expect(toolResultFor(world.llm.requests[2]!.body, 'call_whoami')).toMatch(/^client dcr-\w+ scopes mcp$/);
    expect((await oauth.stats()).authorizations).toBe(before + 1);
  }, 300_000);

  it('a ToolSearch that cannot see the tools of a server waiting for a sign-in signs in and searches again', async () => {
    world = await createWorld({
      mcpJson: mcpJson(),
      script: [search('select:linear__whoami'), whoami, { text: 'Found after signing in.' }],
    });
    await promptSigningIn(world, 'Who am I on linear?');
    expect(toolResultFor(world.llm.requests[1]!.body, 'call_search')).toContain('linear__whoami');
    expect(toolResultFor(world.llm.requests[2]!.body, 'call_whoami')).toMatch(/^client dcr-\w+ scopes mcp$/);
  }, 300_000);

  it('print mode cannot wait for a browser: the call fails naming /mcp-auth, no authorization starts', async () => {
    world = await createWorld({
      mcpJson: mcpJson(),
      script: [search('select:linear__whoami'), whoami, { text: 'Needs a sign-in.' }],
    });
    await writeWarmCache(world.dir, { linear: [WHOAMI] });
    const before = oauth.requests().filter((r) => r.startsWith('GET /authorize')).length;
    const run = await runPiPrint({
      dir: world.dir,
      extensions: [EXTENSION],
      prompt: 'Who am I on linear?',
      timeoutMs: 180_000,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(toolResultFor(world.llm.requests[2]!.body, 'call_whoami')).toContain('Run /mcp-auth linear');
    expect(oauth.requests().filter((r) => r.startsWith('GET /authorize')).length).toBe(before);
  }, 300_000);
});

describe("autoAuth: which sign-in URLs the model's ToolSearch may open", () => {
  /** A fake xdg-open first on PATH (with a DISPLAY): each start appends its arguments to a file. */
  function desktop(w: World) {
    const bin = w.file('bin');
    mkdirSync(bin, { recursive: true });
    const log = w.file('opened.txt');
    writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$#" "$@" >> '${log}'\n`);
    chmodSync(join(bin, 'xdg-open'), 0o755);
    return { env: { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`, DISPLAY: ':99' }, log };
  }

  /** A ToolSearch that finds linear waiting: the notification it shows, once the test signed in by hand. */
  async function searchSigningIn(f: OAuthFixture, w: World, env: Record<string, string>): Promise<string> {
    const rpc = await startPiRpc({ dir: w.dir, extensions: [EXTENSION], env });
    try {
      const run = rpc.promptAndWait('Who am I on linear?', { timeoutMs: 180_000 });
      const shown = await Promise.race([
        rpc.waitForRecord(
          (r) =>
            r.type === 'extension_ui_request' &&
            r.method === 'notify' &&
            String(r.message).startsWith('Sign in to linear'),
          { timeoutMs: 120_000 },
        ),
        run.then(() => {
          throw new Error('the run ended without asking to sign in');
        }),
      ]);
      const message = String(shown.message);
      const url = new URL(/^(\S+\/authorize\?\S+)$/m.exec(message)![1]!);
      // What the user does with a URL that was only printed: opens it by hand (here, the real endpoint).
      await followAuthorization(`${f.origin}/authorize${url.search}`);
      expect((await run).response.success).toBe(true);
      return message;
    } finally {
      await rpc.close();
    }
  }

  const worldFor = (f: OAuthFixture) =>
    createWorld({
      mcpJson: { mcpServers: { linear: { url: f.url, auth: 'oauth' } }, settings: { autoAuth: true } },
      script: [search('select:linear__whoami'), whoami, { text: 'Signed in.' }],
    });

  it('a loopback authorization URL is opened, as one argument', async () => {
    world = await worldFor(oauth);
    const { env, log } = desktop(world);
    const message = await searchSigningIn(oauth, world, env);
    expect(message).toContain('(opened in your browser)');
    const shown = /^(\S+\/authorize\?\S+)$/m.exec(message)![1]!;
    await vi.waitFor(() => expect(existsSync(log)).toBe(true), { timeout: 10_000, interval: 50 });
    expect(readFileSync(log, 'utf8')).toBe(`1\n${shown}\n`);
  }, 300_000);

  it('a plain-http authorization URL on another host is printed, never opened', async () => {
    const f = await startOAuthFixture(['--advertise-authorize', 'http://auth.example.invalid/authorize']);
    try {
      world = await worldFor(f);
      const { env } = desktop(world);
      const message = await searchSigningIn(f, world, env);
      expect(message).toMatch(/^http:\/\/auth\.example\.invalid\/authorize\?\S+$/m);
      expect(message).not.toContain('opened in your browser');
      expect(toolResultFor(world.llm.requests[2]!.body, 'call_whoami')).toMatch(
        /^client dcr-\w+ scopes mcp$/,
      );
    } finally {
      await f.stop();
    }
  }, 300_000);
});
