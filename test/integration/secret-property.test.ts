// The Bar's property: random secrets planted in every config field that can hold one (env values
// under any name, headers, bearerToken, oauth.clientSecret, URL password and query, `--token` /
// `--api-key=` arguments), servers that echo them (stderr before a crash, env and request headers in
// tool results, arguments, error text), and not one of them on any output channel: ToolSearch, tool
// results, /mcp, notifications, status bar, log, inspector events, cache, CLI text and JSON.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connectMcp } from '../../src/adapters/mcp/index.ts';
import { bridgePi } from '../../src/adapters/pi/bridge.ts';
import { runCli } from '../../src/cli/main.ts';
import { type HttpFixture, startHttpFixture, stdioFixture } from '../fixtures/servers/spawn.ts';
import { leaks, sessionChannels } from '../support/output-channels.ts';
import { RecordingPi } from '../support/recording-pi.ts';

let http: HttpFixture;
beforeAll(async () => {
  http = await startHttpFixture();
});
afterAll(() => http.stop());

const text = (result: { content: Array<{ type: string; text?: string }> }) =>
  result.content.map((c) => c.text ?? '').join('\n');

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** A secret with no recognisable shape: only the config can say it is one. */
const secret = (extra = '') =>
  fc.string({ unit: fc.constantFrom(...`${ALNUM}${extra}`), minLength: 12, maxLength: 28 });
/** Any env variable name, secret-sounding or not. */
const envName = fc.stringMatching(/^[A-Z][A-Z0-9_]{2,12}$/).filter((n) => !/^(PATH|HOME|NODE_.*)$/.test(n));

/**
 * Under a name that does not say "secret", docs/config.md leaves single words, numbers and paths alone
 * (log levels, modes, folders): such values are not planted there.
 */
const unnamedSecret = secret(' "\\/+=-_').filter((v) => !/^(?:[~/.]|[A-Za-z]+$|[\d.:,\s-]+$)/.test(v));

/**
 * A value whose name leaves no doubt (issue 34, finding 7), in a shape that reads as "not a secret":
 * digits, a path, a URL, JSON. Distinct enough that finding it in an output means it leaked.
 */
const certainNamed = fc.tuple(
  fc.constantFrom(
    'DB_PASSWORD',
    'STRIPE_KEY',
    'GITHUB_AUTH',
    'SERVICE_CREDENTIAL',
    'APP_SECRET',
    'X_PRIVATE',
  ),
  fc.oneof(
    fc.stringMatching(/^9[0-9]{9,11}$/),
    secret().map((s) => `/var/${s}`),
    secret().map((s) => `https://${s.toLowerCase()}.example.com/`),
    secret().map((s) => `{"k":"${s}"}`),
  ),
);

const planted = fc.record({
  certainNamed,
  envAny: unnamedSecret,
  envNamed: secret('-_.'),
  argToken: secret('-_'),
  argInline: secret('-_'),
  header: secret('-_.'),
  bearer: secret('-_.~'),
  queryKey: secret('-_'),
  urlPassword: secret('-_'),
  clientSecret: secret('-_'),
  dyingEnv: secret('-_'),
  anyName: envName,
});

describe('secrets planted anywhere in the config', () => {
  it('never appear on any output channel, whatever the servers echo', async () => {
    await fc.assert(
      fc.asyncProperty(planted, async (s) => {
        const root = mkdtempSync(join(tmpdir(), 'pi-mcp-secret-prop-'));
        const agentDir = join(root, 'agent');
        const project = join(root, 'project');
        mkdirSync(agentDir, { recursive: true });
        mkdirSync(project, { recursive: true });
        const anyName = `${s.anyName}_X`;
        const crashy = stdioFixture([
          '--crash-on-start',
          '--echo-argv',
          '--echo-env',
          anyName,
          '--echo-env',
          'SERVICE_API_KEY',
          '--echo-env',
          s.certainNamed[0],
          '--token',
          s.argToken,
          `--api-key=${s.argInline}`,
        ]);
        const dying = stdioFixture(['--crash-on-call', '--echo-env', 'DYING_SECRET']);
        const closedPort = 'http://127.0.0.1:9/mcp';
        writeFileSync(
          join(agentDir, 'mcp.json'),
          JSON.stringify({
            mcpServers: {
              crashy: {
                ...crashy,
                env: {
                  [anyName]: s.envAny,
                  SERVICE_API_KEY: s.envNamed,
                  [s.certainNamed[0]]: s.certainNamed[1],
                },
              },
              envy: { ...stdioFixture(), env: { [anyName]: s.envAny } },
              dying: { ...dying, env: { DYING_SECRET: s.dyingEnv } },
              webby: {
                url: `${http.url}?api_key=${s.queryKey}`,
                headers: { 'X-Api-Key': s.header },
                bearerToken: s.bearer,
              },
              refused: {
                url: closedPort.replace('//', `//user:${s.urlPassword}@`),
                oauth: { grantType: 'client_credentials', clientId: 'client', clientSecret: s.clientSecret },
              },
            },
          }),
        );
        const inspectFile = join(root, 'inspect.jsonl');
        const pi = new RecordingPi(project, true);
        const bridge = bridgePi(pi, {
          connector: connectMcp,
          env: { PI_CODING_AGENT_DIR: agentDir, PI_MCP_INSPECT: inspectFile },
          homeDir: root,
        });
        // The CLI in this process (the bin is covered by secret-leak.test.ts), next to the session.
        vi.stubEnv('PI_CODING_AGENT_DIR', agentDir);
        const cliLines: string[] = [];
        const io = {
          out: (line: string) => cliLines.push(line),
          err: (line: string) => cliLines.push(line),
          stdinLines: async function* () {},
        };
        const cliDone = Promise.all([
          runCli(['status', '--json', '--cwd', project], io),
          runCli(['status', '--cwd', project], io),
        ]);
        try {
          await pi.emit('session_start', { reason: 'startup' });
          // Connects every server whose tools are unknown; the failed ones get a note each.
          const search = text(await pi.callTool('ToolSearch', { query: 'environment request headers echo' }));
          const results = [
            await pi.callTool('envy__environment', {}),
            await pi.callTool('webby__request_headers', {}),
            await pi.callTool('envy__echo', { text: `echo ${s.envAny} and ${s.bearer}` }),
            await pi.callTool('dying__echo', { text: 'hi' }),
          ];
          const slash = await pi.command('mcp');
          await pi.emit('session_shutdown', {});
          await cliDone;

          // The echoes did happen (else the property would hold for nothing).
          expect(search).toMatch(/crashy.*exited with code 3/);
          expect(text(results[0]!)).toContain(anyName);
          expect(text(results[1]!).toLowerCase()).toContain('x-api-key');
          expect(results[3]!.isError).toBe(true);
          expect(slash).toMatch(/DYING_SECRET=\*\*\*|SERVICE_API_KEY=\*\*\*/);
          expect(cliLines.join('\n')).toMatch(/SERVICE_API_KEY=\*\*\*/);

          const channels = {
            ...sessionChannels(pi, agentDir, inspectFile),
            toolSearch: search,
            toolResults: JSON.stringify(results),
            mcp: slash,
            cli: cliLines.join('\n'),
          };
          const secrets = [
            s.envAny,
            JSON.stringify(s.envAny).slice(1, -1),
            s.envNamed,
            s.argToken,
            s.argInline,
            s.header,
            s.bearer,
            s.queryKey,
            s.urlPassword,
            s.clientSecret,
            s.dyingEnv,
            s.certainNamed[1],
          ];
          expect(leaks(channels, secrets)).toEqual([]);
        } finally {
          await cliDone.catch(() => undefined);
          vi.unstubAllEnvs();
          const runtime = await bridge.runtime();
          await runtime.stop();
          runtime.dispose();
          rmSync(root, { recursive: true, force: true });
        }
      }),
      { numRuns: 3, endOnFailure: true },
    );
  }, 180_000);
});
