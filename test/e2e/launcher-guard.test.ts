// Issue 34 bar (b) in the real Pi: a user's `python3 -m usermod` server, in a project that planted its own
// `usermod/__main__.py`, runs the user's module, with no trust flag and with `--no-approve`, in the shared
// host (the default). The planted module would write a marker; the user's answers the call
// (src/adapters/mcp/launcher-guard.ts; every launcher through the CLI: test/integration/cli-launchers.test.ts).
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_DIR } from '../fixtures/servers/spawn.ts';
import { hostsUnder } from '../support/hosts.ts';
import { ENSURE_PI_TIMEOUT_MS, ensurePi } from './harness/ensure-pi.ts';
import { EXTENSION, loadedByToolSearch, TOOL_SEARCH, threeRequests, toolResultFor } from './harness/mcp.ts';
import { runPiJson } from './harness/run-pi.ts';
import { createWorld, type World } from './harness/world.ts';

let world: World | undefined;
/** The user's python module is in the repository: found through PYTHONPATH, and no bytecode written there. */
const userPython = { PYTHONPATH: join(FIXTURE_DIR, 'python'), PYTHONDONTWRITEBYTECODE: '1' };

beforeAll(async () => {
  await ensurePi();
}, ENSURE_PI_TIMEOUT_MS);
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

describe('a user python3 -m server in the real Pi', () => {
  for (const flags of [[], ['--no-approve']]) {
    it(`runs the user's module, not the project's (${flags.join(' ') || 'no trust flag'})`, async () => {
      world = await createWorld({
        mcpJson: {
          mcpServers: {
            mine: {
              command: 'python3',
              args: ['-m', 'usermod'],
              env: userPython,
            },
          },
        },
        script: [
          {
            toolCalls: [{ id: 'call_search', name: TOOL_SEARCH, arguments: { query: 'select:mine__echo' } }],
          },
          { toolCalls: [{ id: 'call_echo', name: 'mine__echo', arguments: { text: 'whose module?' } }] },
          { text: 'done' },
        ],
      });
      const mark = join(world.dir.root, 'project-code-ran');
      const planted = join(world.dir.projectDir, 'usermod');
      mkdirSync(planted);
      writeFileSync(join(planted, '__main__.py'), `open(${JSON.stringify(mark)}, "w").write("ran")\n`);

      const run = await runPiJson({
        dir: world.dir,
        extensions: [EXTENSION],
        args: flags,
        prompt: 'Echo.',
        // A first Pi on a busy machine (the host's first start included) can take longer than the default 25 s.
        timeoutMs: 60_000,
      });

      expect(existsSync(mark), run.stderr).toBe(false);
      expect(run.code, run.stderr).toBe(0);
      const requests = threeRequests(world.llm);
      expect(loadedByToolSearch(toolResultFor(requests[1], 'call_search')!)).toEqual(['mine__echo']);
      expect(toolResultFor(requests[2], 'call_echo')).toBe("the user's usermod: whose module?");
      expect(hostsUnder(world.dir.root).length).toBeGreaterThan(0);
    }, 90_000);
  }
});
