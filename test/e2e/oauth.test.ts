// OAuth in the real Pi (RPC mode): a session whose server needs a sign-in runs /mcp-auth; the
// command shows the authorization URL in a notification, the test opens it as a browser would (the
// fixture approves and redirects to our loopback callback), and the model then calls the server's tool.
// In print mode, /mcp-auth says what to run instead of waiting for a browser.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { followAuthorization, type OAuthFixture, startOAuthFixture } from '../fixtures/oauth/start.ts';
import { ENSURE_PI_TIMEOUT_MS, ensurePi } from './harness/ensure-pi.ts';
import { EXTENSION, TOOL_SEARCH, toolResultFor } from './harness/mcp.ts';
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

describe('OAuth sign-in in the real Pi', () => {
  it('/mcp-auth shows the URL, the browser comes back to the loopback, and the tool works', async () => {
    world = await createWorld({
      mcpJson: { mcpServers: { linear: { url: oauth.url, oauth: {} } } },
      script: [
        {
          toolCalls: [
            { id: 'call_search', name: TOOL_SEARCH, arguments: { query: 'select:linear__whoami' } },
          ],
        },
        { toolCalls: [{ id: 'call_whoami', name: 'linear__whoami', arguments: {} }] },
        { text: 'You are signed in.' },
      ],
    });
    const rpc = await startPiRpc({ dir: world.dir, extensions: [EXTENSION] });
    try {
      const since = rpc.records.length;
      const command = rpc.runCommand('/mcp-auth linear', { timeoutMs: 120_000 });
      const shown = await rpc.waitForRecord(
        (r) =>
          r.type === 'extension_ui_request' &&
          r.method === 'notify' &&
          String(r.message).startsWith('Sign in to linear'),
        { since, timeoutMs: 60_000 },
      );
      const url = /^(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)$/m.exec(String(shown.message))?.[1];
      expect(url).toBeDefined();
      await followAuthorization(url!);
      const done = await command;
      const result = done.notifications.map((n) => n.message).join('\n');
      expect(result).toContain('linear: signed in.');
      expect(result).not.toMatch(/at-[0-9a-f]{24}|rt-[0-9a-f]{24}/);

      const run = await rpc.promptAndWait('Who am I on linear?', { timeoutMs: 120_000 });
      expect(run.response.success).toBe(true);
      const third = world.llm.requests[2]!.body;
      expect(toolResultFor(third, 'call_whoami')).toMatch(/^client dcr-\w+ scopes mcp$/);
    } finally {
      await rpc.close();
    }
  });

  it('print mode: /mcp-auth says what to run instead of waiting for a browser', async () => {
    world = await createWorld({
      mcpJson: { mcpServers: { linear: { url: oauth.url, oauth: {} } } },
      script: [{ text: 'unused' }],
    });
    const authorizations = () => oauth.requests().filter((r) => r.startsWith('GET /authorize')).length;
    const before = authorizations();
    const run = await runPiPrint({ dir: world.dir, extensions: [EXTENSION], prompt: '/mcp-auth linear' });
    expect(run.code, run.stderr).toBe(0);
    // Pi keeps stdout for the answer in print mode; what an extension prints goes to stderr.
    expect(`${run.stdout}${run.stderr}`).toContain(
      'print mode cannot wait for one. Run `npx pi-mcp-actors login linear` in a terminal',
    );
    expect(authorizations()).toBe(before);
  });
});
