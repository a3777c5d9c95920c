// Bar (e) of issue 34: `DB_PASSWORD=736251` looks like a number, yet its name says it is a secret. A
// stdio server that prints its environment on stderr and exits must not put it in the CLI's output
// (`status`, `status --json`, `call`) nor in the shared host's log, through the real bin and host.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { removeTempRoot } from '../support/hosts.ts';
import { leaks, runCliBin } from '../support/output-channels.ts';

let root: string;
let agentDir: string;
let project: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'pi-mcp-secret-names-'));
  agentDir = join(root, 'agent');
  project = join(root, 'project');
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(project, { recursive: true });
});

afterEach(() => removeTempRoot(root));

const cli = (args: string[]) => runCliBin(args, { cwd: project, home: root, agentDir });

it('a number under a secret name (DB_PASSWORD=736251) echoed by a failing server is in neither CLI output nor host.log', async () => {
  const password = '736251';
  const pin = '4821'; // as short as a secret we still remove anywhere
  // The environment as `NAME=value` lines, as JSON, and the value alone; then the server dies.
  const script =
    'env >&2; printf \'{"DB_PASSWORD":"%s"}\\n\' "$DB_PASSWORD" >&2; ' +
    'echo "DB_PASSWORD=$DB_PASSWORD: connecting with $DB_PASSWORD and $STRIPE_KEY" >&2; exit 1';
  writeFileSync(
    join(agentDir, 'mcp.json'),
    JSON.stringify({
      mcpServers: {
        failing: { command: 'sh', args: ['-c', script], env: { DB_PASSWORD: password, STRIPE_KEY: pin } },
      },
    }),
  );
  const status = await cli(['status']);
  const json = await cli(['status', '--json']);
  const call = await cli(['call', 'failing__anything', '{}']);

  // The server did fail and its stderr was shown (so the absence of the value means something).
  expect(json.stdout).toMatch(/DB_PASSWORD=\*\*\*: connecting with \*\*\* and \*\*\*/);
  expect(status.stdout + status.stderr).toMatch(/failing/);
  const hostLog = join(agentDir, 'mcp-host', 'host.log');
  expect(existsSync(hostLog)).toBe(true);
  const log = readFileSync(hostLog, 'utf8');
  expect(log).toMatch(/failing/);

  const channels = {
    status: status.stdout + status.stderr,
    statusJson: json.stdout + json.stderr,
    call: call.stdout + call.stderr,
    hostLog: log,
  };
  expect(leaks(channels, [password, pin])).toEqual([]);
}, 60_000);
