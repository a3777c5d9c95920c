// The one terminal sanitizer: one table of hostile inputs and what a terminal may be shown of them.

import { describe, expect, it } from 'vitest';
import { plainLine, plainText } from '../../src/terminal-text.ts';

const ESC = '\u001b';
const BEL = '\u0007';

const table: Array<[label: string, input: string, block: string]> = [
  ['plain text', 'read a file', 'read a file'],
  ['newlines and tabs', 'a\n\tb', 'a\n\tb'],
  ['CR LF and a lone CR become newlines', 'a\r\nb\rc', 'a\nb\nc'],
  ['colour (SGR)', `${ESC}[31mred${ESC}[0m`, 'red'],
  ['erase line and cursor up', `ok${ESC}[2K${ESC}[1A${ESC}[999D`, 'ok'],
  ['OSC 52 clipboard, BEL-terminated', `x${ESC}]52;c;Y3VybCBldmlsIHwgc2g=${BEL}y`, 'xy'],
  ['OSC 52 clipboard, ST-terminated', `x${ESC}]52;c;Y3VybA==${ESC}\\y`, 'xy'],
  ['title change (OSC 0)', `${ESC}]0;pwned${BEL}name`, 'name'],
  ['hyperlink (OSC 8)', `${ESC}]8;;https://evil.example${ESC}\\click${ESC}]8;;${ESC}\\`, 'click'],
  ['unterminated OSC hides the rest', `safe${ESC}]0;title and more`, 'safe'],
  ['DCS', `a${ESC}Pq#0;2;0;0;0${ESC}\\b`, 'ab'],
  ['APC, PM, SOS', `a${ESC}_apc${ESC}\\b${ESC}^pm${ESC}\\c${ESC}Xsos${ESC}\\d`, 'abcd'],
  ['8-bit CSI', 'a\u009b2Kb', 'ab'],
  ['8-bit OSC with 8-bit ST', 'a\u009d52;c;eA==\u009cb', 'ab'],
  ['8-bit DCS and APC', 'a\u0090q\u009cb\u009fapc\u009cc', 'abc'],
  ['reset (ESC c) and charset (ESC ( B)', `a${ESC}cb${ESC}(Bc`, 'abc'],
  ['lone ESC at the end', `a${ESC}`, 'a'],
  ['C0 controls: backspace, bell, NUL, vertical tab, form feed', 'a\b\u0007\u0000\u000b\u000cb', 'ab'],
  ['DEL and other C1 controls', 'a\u007f\u0085\u0084b', 'ab'],
  ['bidi overrides and isolates', 'a\u202eevil\u202cb\u2066c\u2069', 'aevilbc'],
];

describe('plainText', () => {
  it.each(table)('%s', (_label, input, block) => {
    expect(plainText(input)).toBe(block);
  });

  it('caps the length with an ellipsis', () => {
    expect(plainText('abcdef', 4)).toBe('abc…');
  });

  it('leaves nothing a terminal would act on, whatever the table adds up to', () => {
    const all = table.map(([, input]) => input).join(' ');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for control characters
    expect(plainText(all)).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
  });
});

describe('plainLine', () => {
  it('puts a block on one line', () => {
    expect(plainLine(`a\r\nb\tc\n${ESC}[2Kd`)).toBe('a b c d');
  });
});
