// Every context Pi hands the bridge shows only sanitized text; a dialog's answer is the caller's own
// option, even when two options read the same once cleaned.

import { describe, expect, it } from 'vitest';
import type { PiContext } from '../../../../src/adapters/pi/pi-types.ts';
import { terminalSafeContext } from '../../../../src/adapters/pi/terminal-ui.ts';

const TITLE = 'pick\u001b]0;pwned\u0007 one';

function recordingContext(answer: (options: string[]) => string | undefined) {
  const shown: unknown[][] = [];
  const ctx: PiContext = {
    cwd: '/',
    hasUI: true,
    isIdle: () => true,
    ui: {
      notify: (...args) => void shown.push(['notify', ...args]),
      setStatus: (...args) => void shown.push(['setStatus', ...args]),
      select: async (title, options) => {
        shown.push(['select', title, options]);
        return answer(options);
      },
      confirm: async (title, message) => {
        shown.push(['confirm', title, message]);
        return true;
      },
      input: async (title, placeholder) => {
        shown.push(['input', title, placeholder]);
        return 'typed';
      },
    },
  };
  return { ctx, shown };
}

describe('terminalSafeContext', () => {
  it('sanitizes notify (block kept), status (one line), dialog titles, messages, placeholders and options', async () => {
    const { ctx, shown } = recordingContext((options) => options[1]);
    const safe = terminalSafeContext(ctx);
    safe.ui.notify('a\u001b[2K\nb\u202e', 'info');
    safe.ui.setStatus('mcp', 'one\ntwo\u009b2J');
    expect(await safe.ui.select!(TITLE, ['Red\u001b]52;c;eA==\u0007', 'Red'])).toBe('Red');
    expect(await safe.ui.confirm!(TITLE, 'm\u0007')).toBe(true);
    expect(await safe.ui.input!(TITLE, 'p\u001b[1A')).toBe('typed');
    expect(shown).toEqual([
      ['notify', 'a\nb', 'info'],
      ['setStatus', 'mcp', 'one two'],
      ['select', 'pick one', ['Red', 'Red (2)']],
      ['confirm', 'pick one', 'm'],
      ['input', 'pick one', 'p'],
    ]);
  });

  it('keeps what is not text as it is: identity per context, flags, methods bound to Pi’s context', () => {
    const { ctx } = recordingContext(() => undefined);
    const safe = terminalSafeContext(ctx);
    expect(terminalSafeContext(ctx)).toBe(safe);
    expect(safe.hasUI).toBe(true);
    expect(safe.isIdle?.()).toBe(true);
    expect(terminalSafeContext({})).toEqual({});
  });
});
