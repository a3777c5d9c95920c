// The one data walker: a redacted, JSON-safe copy of any value, every string through a text scrubber.
// For our own data (log fields, inspector events) it also hides by name: the whole value under a
// secret-named key of the key policy, and the values of env / headers maps. A server's data is never
// judged by its keys (DESIGN rule 6): only its strings are scrubbed, with known secrets only.
// A live connection (SDK client, transport, child process) never leaves as data: it is described.

import { setOwn } from '../plain-object.ts';
import { isSecretField, REDACTED, SECRET_MAP_KEY } from './key-policy.ts';

export interface DataRedaction {
  /** How each string (a value, or a name inside an env / headers map) is scrubbed. */
  text: (value: string) => string;
  /** Hide values by their key (our own data only). */
  byKey: boolean;
  /** Nesting levels walked; deeper values become `[too deep]`. */
  maxDepth: number;
}

/** Our diagnostic data: secret-named values hidden (strings through SecretValues.redact). */
export const OUR_DATA: Omit<DataRedaction, 'text'> = { byKey: true, maxDepth: 16 };
/** A server's data (schemas are cut at 64 levels before they get here): judged by its strings only. */
export const SERVER_DATA: Omit<DataRedaction, 'text'> = { byKey: false, maxDepth: 100 };

const CONNECTION_KEY = /^connection$/i;

export function redactData(value: unknown, how: DataRedaction): unknown {
  return walk(value, how, 0, new WeakSet());
}

function walk(value: unknown, how: DataRedaction, depth: number, seen: WeakSet<object>): unknown {
  switch (typeof value) {
    case 'string':
      return how.text(value);
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
  if (depth >= how.maxDepth) return '[too deep]';
  seen.add(object);
  try {
    if (object instanceof Error) {
      return {
        ...walkObject(object, how, depth, seen),
        name: object.name,
        message: how.text(object.message),
      };
    }
    if (isConnectionLike(object)) return describeConnection(object);
    const toJSON = (object as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') {
      const json = (toJSON as () => unknown).call(object);
      return json === object ? walkObject(object, how, depth, seen) : walk(json, how, depth + 1, seen);
    }
    if (Array.isArray(object)) return object.map((item) => walk(item, how, depth + 1, seen) ?? null);
    if (object instanceof Map) return walkObject(Object.fromEntries(object), how, depth, seen);
    if (object instanceof Set) return [...object].map((item) => walk(item, how, depth + 1, seen) ?? null);
    if (ArrayBuffer.isView(object) || object instanceof ArrayBuffer) return `[${object.byteLength} bytes]`;
    return walkObject(object, how, depth, seen);
  } finally {
    seen.delete(object);
  }
}

function walkObject(
  object: object,
  how: DataRedaction,
  depth: number,
  seen: WeakSet<object>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(object)) {
    const redacted = walkEntry(key, item, how, depth, seen);
    if (redacted !== undefined) setOwn(out, key, redacted);
  }
  return out;
}

function walkEntry(
  key: string,
  item: unknown,
  how: DataRedaction,
  depth: number,
  seen: WeakSet<object>,
): unknown {
  if (item === undefined || item === null || item === '') return item;
  if (how.byKey && CONNECTION_KEY.test(key)) {
    // Already described by an earlier pass: keep the description.
    return typeof item === 'string' && item.startsWith('[connection')
      ? how.text(item)
      : describeConnection(item);
  }
  if (how.byKey && SECRET_MAP_KEY.test(key)) {
    if (typeof item !== 'object' || Array.isArray(item)) return REDACTED;
    const masked: Record<string, string> = {};
    for (const name of Object.keys(item as object)) masked[how.text(name)] = REDACTED;
    return masked;
  }
  if (how.byKey && isSecretField(key, item)) return REDACTED;
  return walk(item, how, depth + 1, seen);
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
