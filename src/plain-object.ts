// A JSON object as parsers produce it (not an array, not a class instance).

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Sets an own, enumerable data property: a `__proto__` key from outside stays data, not a prototype. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Those of `keys` whose value in `source` is a string (optional descriptor fields, copied as they are). */
export function stringFields<K extends string>(
  source: object,
  keys: readonly K[],
): Partial<Record<K, string>> {
  const out: Partial<Record<K, string>> = {};
  for (const key of keys) {
    const value = (source as Record<string, unknown>)[key];
    if (typeof value === 'string') out[key] = value;
  }
  return out;
}
