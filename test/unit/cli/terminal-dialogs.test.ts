// The CLI's terminal dialogs and what it answers servers: a form asked on a terminal (streams here),
// declined with the reason without one; sampling declined; the working directory as the root.

import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { cliServerRequests } from '../../../src/cli/server-requests.ts';
import { terminalDialogs } from '../../../src/cli/terminal-dialogs.ts';
import { HostRefusal } from '../../../src/ports/mcp.ts';

/** A terminal: answers each question once it is asked; records what was shown. */
function terminal(answers: string[]) {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = '';
  output.on('data', (d) => {
    shown += String(d);
    const next = answers.shift();
    if (next !== undefined) setImmediate(() => input.write(`${next}\n`));
  });
  return { dialogs: terminalDialogs(input, output), shown: () => shown, input };
}

const form = {
  mode: 'form' as const,
  message: 'Who are you?',
  requestedSchema: {
    type: 'object',
    properties: { name: { type: 'string', title: 'Name' }, age: { type: 'integer', minimum: 0, maximum: 9 } },
    required: ['name'],
  },
};

describe('the CLI answering a server', () => {
  it('asks a form on the terminal: a choice by number or label, a wrong choice asked again', async () => {
    const t = terminal(['maybe', 'answer', 'Ada', 'x', '7']);
    const ask = cliServerRequests('/work', t.dialogs)('srv');
    const answer = await ask.elicit!(form, new AbortController().signal);
    expect(answer).toEqual({ action: 'accept', content: { name: 'Ada', age: 7 } });
    expect(t.shown()).toContain(
      'MCP server "srv" asks: Who are you?\n  1. Answer\n  2. Decline\nChoose 1-2 [1]: ',
    );
    expect(t.shown()).toContain('"maybe" is not one of the choices.');
    expect(t.shown()).toContain('Name (field 1 of 2): ');
    expect(t.shown()).toContain(
      '"x" is not a number. age (optional) (field 2 of 2; a whole number from 0 to 9)',
    );
  });

  it('says a default once', async () => {
    const t = terminal(['', '']);
    const ask = cliServerRequests('/work', t.dialogs)('srv');
    const answer = await ask.elicit!(
      {
        mode: 'form',
        message: 'Size?',
        requestedSchema: { type: 'object', properties: { size: { type: 'integer', default: 42 } } },
      },
      new AbortController().signal,
    );
    expect(answer).toEqual({ action: 'accept', content: { size: 42 } });
    expect(t.shown()).toContain('size (optional) (default: 42): ');
    expect(t.shown().split('42').length - 1).toBe(1);
  });

  it('end of input cancels; without a terminal the server is told why', async () => {
    const t = terminal([]);
    const ask = cliServerRequests('/work', t.dialogs)('srv');
    const pending = ask.elicit!(form, new AbortController().signal);
    t.input.end();
    expect(await pending).toEqual({ action: 'cancel' });
    const none = cliServerRequests('/work', undefined)('srv');
    await expect(none.elicit!(form, new AbortController().signal)).rejects.toThrow(
      /asked "Who are you\?", and nobody can answer it here \(stdin is not a terminal\)\. Run the command in a terminal/,
    );
    await expect(none.elicit!(form, new AbortController().signal)).rejects.not.toThrow(/conversation/);
  });

  it('declines sampling with the reason and gives the working directory as the root', async () => {
    const ask = cliServerRequests('/work/project', undefined)('srv');
    const refusal = ask.sample!({ messages: [], maxTokens: 1, modelHints: [] }, new AbortController().signal);
    await expect(refusal).rejects.toBeInstanceOf(HostRefusal);
    await expect(refusal).rejects.toThrow(/CLI has no model to sample with/);
    expect(ask.roots!()).toEqual([{ uri: 'file:///work/project', name: 'working directory' }]);
  });
});
