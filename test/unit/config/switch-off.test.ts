// D in the /mcp panel: `"enabled": false` written into the user's config file that defines the
// server, the file's comments, order and indentation kept; the loader then skips the server and says
// where to switch it back on. Project files and other clients' files are not written.
import { chmodSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatPath, parsePath } from '../../../src/config/json-path.ts';
import { switchOffInConfig, switchOffTarget } from '../../../src/config/switch-off.ts';
import { cleanupLayouts, layout } from './helpers.ts';

afterEach(cleanupLayouts);

const USER_FILE = `{
    // my servers
    "mcpServers": {
        "broken.one": { "command": "node", "args": ["crash.js"] }, // crashes at start
        "memory": {
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-memory"]
        }
    }
}
`;

describe('switchOffInConfig', () => {
  it('writes "enabled": false into the entry, keeps the rest of the file, and the loader skips it', async () => {
    const files = layout({ 'home/.pi/agent/mcp.json': USER_FILE });
    const file = join(files.agentDir, 'mcp.json');
    chmodSync(file, 0o600);
    const before = files.load();
    const broken = before.servers.find((d) => d.name === 'broken.one');
    expect(broken?.source).toMatchObject({ file, kind: 'user' });

    expect(await switchOffInConfig(broken!.source)).toEqual({ kind: 'written', file });
    const text = readFileSync(file, 'utf8');
    expect(text).toBe(`{
    // my servers
    "mcpServers": {
        "broken.one": {
            "command": "node",
            "args": [
                "crash.js"
            ],
            "enabled": false
        }, // crashes at start
        "memory": {
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-memory"]
        }
    }
}
`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const after = files.load();
    expect(after.servers.map((d) => d.name)).toEqual(['memory']);
    expect(after.skipped.find((s) => s.name === 'broken.one')?.fix).toContain(file);
  });

  it('leaves project files and other clients\u2019 files alone', async () => {
    const project = { file: '/work/app/.pi/mcp.json', kind: 'project' as const, keyPath: 'mcpServers.x' };
    expect(switchOffTarget(project)).toEqual({ kind: 'project', file: project.file });
    expect(await switchOffInConfig(project)).toEqual({ kind: 'project', file: project.file });
    const cursor = {
      file: '/home/u/.cursor/mcp.json',
      kind: 'import' as const,
      importedFrom: 'cursor',
      keyPath: 'mcpServers.x',
    };
    expect(switchOffTarget(cursor)).toEqual({ kind: 'notOurs', file: cursor.file, client: 'cursor' });
    const fromPi = { file: 'pi.getMcpServers()', kind: 'user' as const, keyPath: '[0]' };
    expect(switchOffTarget(fromPi).kind).toBe('notOurs');
  });
});

describe('parsePath', () => {
  it('reads back what formatPath wrote', () => {
    for (const path of [
      ['mcpServers', 'github'],
      ['mcpServers', 'my.server', 'args', 2],
      ['servers', 'a"b\\c'],
      [0],
    ]) {
      expect(parsePath(formatPath(path))).toEqual(path);
    }
    expect(parsePath('mcpServers..x')).toBeUndefined();
    expect(parsePath('.x')).toBeUndefined();
  });
});
