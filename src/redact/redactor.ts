// A redactor for a channel that knows extra secrets of its own beyond its runtime's known ones (the
// inspector: the secrets of the definitions it shows). The extra list is read once per tick, as one
// event is redacted in several passes.

import { OUR_DATA, redactData } from './data.ts';
import { REDACTED, type SecretValues } from './secret-values.ts';

export interface Redactor {
  /** A redacted, JSON-safe copy of any value. */
  value(value: unknown): unknown;
  /** A string with every known secret and credential-looking part replaced by `***`. */
  text(value: string): string;
}

export function createRedactor(known: SecretValues, secrets: () => readonly string[] = () => []): Redactor {
  let cached: readonly string[] | undefined;
  const extra = (): readonly string[] => {
    if (cached) return cached;
    cached = readSecrets(secrets);
    queueMicrotask(() => {
      cached = undefined;
    });
    return cached;
  };
  const text = (value: string): string => {
    const list = extra();
    return list.includes(value) ? REDACTED : known.redact(value, list);
  };
  return {
    value: (value) => redactData(value, { ...OUR_DATA, text }),
    text,
  };
}

function readSecrets(secrets: () => readonly string[]): readonly string[] {
  let list: readonly string[] = [];
  try {
    list = secrets();
  } catch {
    list = [];
  }
  // Longest first, so a secret that contains another is replaced whole.
  return [...new Set(list.filter((s): s is string => typeof s === 'string' && s.length > 0))].sort(
    (a, b) => b.length - a.length,
  );
}
