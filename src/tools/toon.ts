// Optional result stage: JSON text blocks re-encoded as TOON (a compact, LLM-readable notation) when
// that is strictly shorter. Anything else, and anything that could change the data, stays as it is.

import { encode } from '@toon-format/toon';
import type { PiContent } from './content.ts';

/** Integers this long lose digits in JSON.parse; such text is left alone. */
const UNSAFE_NUMBER = /\d{16,}/;

export function maybeToon(content: PiContent[], enabled: boolean): PiContent[] {
  if (!enabled) return content;
  return content.map((c) => {
    if (c.type !== 'text') return c;
    const toon = toToon(c.text);
    return toon === undefined ? c : { type: 'text', text: toon };
  });
}

function toToon(text: string): string | undefined {
  try {
    const trimmed = text.trim();
    if (!(trimmed.startsWith('{') || trimmed.startsWith('[')) || UNSAFE_NUMBER.test(trimmed))
      return undefined;
    const encoded = encode(JSON.parse(trimmed));
    return encoded.trim() !== '' && encoded.length < text.length ? encoded : undefined;
  } catch {
    return undefined;
  }
}
