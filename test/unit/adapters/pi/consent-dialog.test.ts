// The consent question (issue 23): what it shows, and how the three answers settle the waiting servers.
// Deny is the first answer (Pi's select has no preselection), so Enter or Escape never allows (issue 34).
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: config text with ${VAR} references.

import { describe, expect, it } from 'vitest';
import {
  ALLOW,
  ALLOW_ALL,
  ANSWERS,
  askProjectConsent,
  consentQuestion,
  DENY,
} from '../../../../src/adapters/pi/consent-dialog.ts';
import type { PendingServer } from '../../../../src/config/types.ts';

const waiting = (name: string, extra: Partial<PendingServer> = {}): PendingServer => ({
  name,
  source: { file: '/p/.mcp.json', kind: 'project', keyPath: `mcpServers.${name}` },
  key: `key-${name}`,
  runs: `run-${name}`,
  envKeys: [],
  headerKeys: [],
  inheritsEnv: false,
  ...extra,
});

function answering(...answers: Array<string | undefined>) {
  const asked: string[] = [];
  return {
    asked,
    select: async (title: string, options: string[]) => {
      expect(options).toEqual([DENY, ALLOW, ALLOW_ALL]);
      asked.push(title);
      return answers.shift();
    },
  };
}

describe('the consent question', () => {
  it('says which project scripts the answer covers, and why it asks again', () => {
    const text = consentQuestion(
      '/p',
      waiting('script', {
        runs: 'sh ./server.sh',
        scripts: { './server.sh': 'abc' },
        changed: './server.sh changed since you allowed it',
      }),
    );
    expect(text).toContain('  asked again: ./server.sh changed since you allowed it');
    expect(text).toContain('  covers the content of: ./server.sh (not the files they load)');
  });

  it('shows what the server runs, its environment, and which of yours Deny keeps', () => {
    const text = consentQuestion(
      '/p',
      waiting('gh', {
        runs: "npx -y 'evil pkg'",
        inheritsEnv: true,
        replaces: '/home/u/.pi/agent/mcp.json',
        fields: { command: 'npx', args: ['-y', 'evil pkg'], env: { GITHUB_TOKEN: '${GITHUB_TOKEN}' } },
      }),
      { homeDir: '/home/u' },
    );
    expect(text).toBe(
      [
        'Start the MCP server "gh" from /p/.mcp.json?',
        "  runs: npx -y 'evil pkg'",
        '  environment: GITHUB_TOKEN and your whole environment',
        '  sends ${GITHUB_TOKEN}: your value, in env GITHUB_TOKEN',
        '  Deny keeps your own gh from ~/.pi/agent/mcp.json',
        'Project: /p (the answer is remembered for it; a changed entry asks again)',
      ].join('\n'),
    );
  });

  it('offers Deny first', () => {
    expect(ANSWERS[0]).toBe(DENY);
  });

  it('strips terminal escapes and line breaks a project wrote', () => {
    const text = consentQuestion(
      '/p',
      waiting('x\u001b]52;c;Y3VybCB8IHNo\u0007y', { runs: 'a\nb\u001b[2Jc' }),
    );
    expect(text.includes('\u001b') || text.includes('\u0007')).toBe(false);
    expect(text.split('\n')[1]).toBe('  runs: a ⏎ bc');
  });
});

describe('answers', () => {
  it('allow and deny are per server; a denied one is not asked again in this process', async () => {
    const denied = new Set<string>();
    const ui = answering(DENY, ALLOW);
    const allowed = await askProjectConsent(ui, '/p', [waiting('a'), waiting('b')], denied);
    expect(allowed.map((s) => s.name)).toEqual(['b']);
    expect([...denied]).toEqual(['key-a']);
    const again = answering();
    expect(await askProjectConsent(again, '/p', [waiting('a')], denied)).toEqual([]);
    expect(again.asked).toEqual([]);
  });

  it('allow all takes this and every later waiting server; Escape is a deny', async () => {
    const ui = answering(undefined, ALLOW_ALL);
    const allowed = await askProjectConsent(ui, '/p', [waiting('a'), waiting('b'), waiting('c')], new Set());
    expect(allowed.map((s) => s.name)).toEqual(['b', 'c']);
    expect(ui.asked).toHaveLength(2);
  });
});
