// Text a server wrote (tool and resource descriptions, names in labels, stderr) made safe to show in
// a terminal and to a model: ANSI escape sequences, control characters (newlines and tabs kept) and
// bidirectional overrides removed, and the length capped.

const ESC = '\\u001b';
const BEL = '\\u0007';
const ANSI = new RegExp(
  `${ESC}(?:\\[[0-?]*[ -/]*[@-~]|\\][^${BEL}${ESC}]*(?:${BEL}|${ESC}\\\\)?|[PX^_][^${ESC}]*(?:${ESC}\\\\)?|[@-Z\\\\-_])`,
  'g',
);
const CONTROL = new RegExp(
  `[${'\\u0000'}-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069]`,
  'g',
);

/** Longest description kept (a server's description is not a place for a manual). */
export const MAX_DESCRIPTION_CHARS = 4_000;

export function plainText(text: string, max = Number.POSITIVE_INFINITY): string {
  const plain = String(text).replace(ANSI, '').replace(/\r\n?/g, '\n').replace(CONTROL, '');
  return plain.length <= max ? plain : `${plain.slice(0, max - 1)}…`;
}
