// The one terminal sanitizer. Text we did not write (server names from project files, descriptions,
// dialogs, stderr, errors, tool output shown by the CLI, log lines) passes here before a terminal or
// a log shows it, so it cannot drive the terminal: escape sequences (CSI, OSC such as the OSC 52
// clipboard write and title changes, DCS, SOS, PM, APC, in 7-bit and 8-bit form) are removed whole,
// other C0/C1 controls and DEL dropped, bidirectional overrides and isolates dropped (Trojan Source).
//
//   plainText(text, max?)   a block: newlines and tabs kept (a lone CR becomes a newline)
//   plainLine(text, max?)   one line: newlines and tabs become spaces
//
// Stateless and small: the start module and the lazy halves may both bundle it.

const ESC = '\\u001b';
const BEL = '\\u0007';
const ST8 = '\\u009c';
/** What ends a string sequence: BEL (OSC only, as xterm allows), ESC \ or the 8-bit ST; else the text's end. */
const STRING_END = `(?:${BEL}|${ESC}\\\\|${ST8}|$)`;
const SEQUENCE = new RegExp(
  [
    // CSI: ESC [ or 8-bit CSI, parameters, intermediates, final byte.
    `(?:${ESC}\\[|\\u009b)[0-?]*[ -/]*[@-~]?`,
    // OSC, DCS, SOS, PM, APC (7-bit and 8-bit introducers) up to their terminator.
    `(?:${ESC}[\\]PX^_]|[\\u0090\\u0098\\u009d\\u009e\\u009f])[^${BEL}${ESC}${ST8}]*${STRING_END}`,
    // Other escapes: intermediates (charset designation, ESC ( B) and a final byte (ESC c resets).
    `${ESC}[ -/]*[0-~]`,
  ].join('|'),
  'g',
);
const CONTROL = new RegExp(
  `[${'\\u0000'}-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069]`,
  'g',
);

/** Longest description kept (a server's description is not a place for a manual). */
export const MAX_DESCRIPTION_CHARS = 4_000;

/** Text safe to show as a block: sequences and controls removed, newlines and tabs kept, length capped. */
export function plainText(text: string, max = Number.POSITIVE_INFINITY): string {
  const plain = String(text).replace(SEQUENCE, '').replace(/\r\n?/g, '\n').replace(CONTROL, '');
  return plain.length <= max ? plain : `${plain.slice(0, max - 1)}…`;
}

/** Text safe to show on one line (a label, a status bar, a log line): as plainText, line breaks and tabs as spaces. */
export function plainLine(text: string, max = Number.POSITIVE_INFINITY): string {
  return plainText(String(text).replace(/[\r\n\t]+/g, ' '), max);
}
