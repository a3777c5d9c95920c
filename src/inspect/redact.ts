// Redaction for everything that leaves the process as an inspection event. Three nets, applied
// together: keys that name secrets, values of env / headers maps, and every string through the one
// redaction (src/redact.ts: known secrets, token shapes). The result is always plain JSON data.

import { REDACTED, redact } from '../redact.ts';
import { SECRET_FIELD, SECRET_MAP_FIELD } from '../secret-policy.ts';

export { REDACTED };

/** The live Connection (SDK client, transport, child process) never leaves as data. */
const CONNECTION_KEY = /^connection$/i;

const MAX_DEPTH = 16;

export interface Redactor {
  /** A redacted, JSON-safe copy of any value. */
  value(value: unknown): unknown;
  /** A string with every known secret and credential-looking part replaced by `***`. */
  text(value: string): string;
}

/** `secrets`: values to hide beyond the process-wide set (read once per tick). */
export function createRedactor(secrets: () => readonly string[] = () => []): Redactor {
  // One event is redacted in several passes within a tick; read the secrets once per tick.
  let cached: readonly string[] | undefined;
  const known = (): readonly string[] => {
    if (cached) return cached;
    cached = readSecrets();
    queueMicrotask(() => {
      cached = undefined;
    });
    return cached;
  };
  const readSecrets = () => {
    let list: readonly string[] = [];
    try {
      list = secrets();
    } catch {
      list = [];
    }
    const unique = [...new Set(list.filter((s): s is string => typeof s === 'string' && s.length > 0))];
    // Longest first, so a secret that contains another is replaced whole.
    return unique.sort((a, b) => b.length - a.length);
  };

  const text = (value: string, list: readonly string[] = known()): string =>
    list.includes(value) ? REDACTED : redact(value, list);

  return {
    value: (value) => walk(value, known(), text, 0, new WeakSet()),
    text: (value) => text(value),
  };
}

type TextRedactor = (value: string, list: readonly string[]) => string;

function walk(
  value: unknown,
  list: readonly string[],
  text: TextRedactor,
  depth: number,
  seen: WeakSet<object>,
): unknown {
  switch (typeof value) {
    case 'string':
      return text(value, list);
    case 'number':
      return Number.isFinite(value) ? value : String(value);
    case 'boolean':
      return value;
    case 'bigint':
      return value.toString();
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
  }
  if (value === null) return null;
  const object = value as object;
  if (seen.has(object)) return '[circular]';
  if (depth >= MAX_DEPTH) return '[too deep]';
  seen.add(object);
  try {
    if (object instanceof Error) return walkError(object, list, text, depth, seen);
    if (isConnectionLike(object)) return describeConnection(object);
    const toJSON = (object as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') {
      const json = (toJSON as () => unknown).call(object);
      return json === object
        ? walkObject(object, list, text, depth, seen)
        : walk(json, list, text, depth + 1, seen);
    }
    if (Array.isArray(object)) return object.map((item) => walk(item, list, text, depth + 1, seen) ?? null);
    if (object instanceof Map) {
      return walkObject(Object.fromEntries(object), list, text, depth, seen);
    }
    if (object instanceof Set)
      return [...object].map((item) => walk(item, list, text, depth + 1, seen) ?? null);
    if (ArrayBuffer.isView(object) || object instanceof ArrayBuffer) return `[${object.byteLength} bytes]`;
    return walkObject(object, list, text, depth, seen);
  } finally {
    seen.delete(object);
  }
}

function walkObject(
  object: object,
  list: readonly string[],
  text: TextRedactor,
  depth: number,
  seen: WeakSet<object>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(object)) {
    const redacted = redactEntry(key, item, list, text, depth, seen);
    if (redacted !== undefined) out[key] = redacted;
  }
  return out;
}

function redactEntry(
  key: string,
  item: unknown,
  list: readonly string[],
  text: TextRedactor,
  depth: number,
  seen: WeakSet<object>,
): unknown {
  if (item === undefined || item === null || item === '') return item;
  if (CONNECTION_KEY.test(key)) {
    // Already described by an earlier pass: keep the description.
    return typeof item === 'string' && item.startsWith('[connection')
      ? text(item, list)
      : describeConnection(item);
  }
  if (SECRET_MAP_FIELD.test(key)) {
    if (typeof item !== 'object' || Array.isArray(item)) return REDACTED;
    const masked: Record<string, string> = {};
    for (const name of Object.keys(item as object)) masked[text(name, list)] = REDACTED;
    return masked;
  }
  if (SECRET_FIELD.test(key)) return REDACTED;
  return walk(item, list, text, depth + 1, seen);
}

function walkError(
  error: Error,
  list: readonly string[],
  text: TextRedactor,
  depth: number,
  seen: WeakSet<object>,
): Record<string, unknown> {
  return {
    ...walkObject(error, list, text, depth, seen),
    name: error.name,
    message: text(error.message, list),
  };
}

/** Our Connection port (whatever class implements it) is recognised by its methods. */
function isConnectionLike(object: object): boolean {
  const candidate = object as Record<string, unknown>;
  return (
    typeof candidate.callTool === 'function' &&
    typeof candidate.close === 'function' &&
    typeof candidate.onEvent === 'function'
  );
}

/** A short, secret-free description of a live connection, e.g. `[connection stdio, pid 42, 3 tools]`. */
export function describeConnection(connection: unknown): string {
  if (typeof connection !== 'object' || connection === null) return '[connection]';
  const parts: string[] = [];
  try {
    const { catalog, pid } = connection as {
      catalog?: { transport?: unknown; tools?: unknown };
      pid?: unknown;
    };
    if (typeof catalog?.transport === 'string') parts.push(catalog.transport.replace(/[^\w-]/g, ''));
    if (typeof pid === 'number') parts.push(`pid ${pid}`);
    if (Array.isArray(catalog?.tools)) parts.push(`${catalog.tools.length} tools`);
  } catch {
    // A getter that throws still gets a description.
  }
  return parts.length > 0 ? `[connection ${parts.join(', ')}]` : '[connection]';
}
