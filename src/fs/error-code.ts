// The `code` of a Node system error (ENOENT, EEXIST, ...), if the thrown value has one.

export function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
}
