// pi-mcp-adapter keys honoured here (no note, nothing dropped) and `tasks`, which stays a one-time
// info that says why it cannot apply.

import { describe, expect, it } from 'vitest';
import { loadMemory, server, USER_FILE } from './helpers.ts';

describe('pi-mcp-adapter keys', () => {
  it('approveTools, toolPrefix, searchKeywords, sampling, samplingAutoApprove, elicitation: honoured without notes', () => {
    const config = loadMemory({
      [USER_FILE]: JSON.stringify({
        settings: {
          approveTools: ['*_delete_*'],
          sampling: false,
          samplingAutoApprove: true,
          elicitation: false,
          toolPrefix: 'short',
        },
        mcpServers: {
          gh: { command: 'gh', approveTools: true, toolPrefix: 'mcp', searchKeywords: { '*': ['git'] } },
        },
      }),
    });
    expect(config.diagnostics).toEqual([]);
    expect(config.settings).toMatchObject({
      approveTools: ['*_delete_*'],
      sampling: false,
      samplingAutoApprove: true,
      elicitation: false,
      toolPrefix: 'short',
    });
    expect(server(config, 'gh')).toMatchObject({
      approveTools: true,
      toolPrefix: 'mcp',
      searchKeywords: { '*': ['git'] },
    });
  });

  it('tasks: one info per entry saying it is not applied; the server is kept', () => {
    const config = loadMemory({
      [USER_FILE]: JSON.stringify({
        mcpServers: { long: { command: 'long', tasks: { pollIntervalMs: 500 } } },
      }),
    });
    expect(config.servers.map((s) => s.name)).toEqual(['long']);
    expect(config.diagnostics).toEqual([
      expect.objectContaining({
        level: 'info',
        code: 'compat-key',
        path: 'mcpServers.long.tasks',
        message:
          'Server "long": "tasks" (pi-mcp-adapter) is not applied: tasks are polled at the interval each server asks for, in both eras.',
      }),
    ]);
  });
});
