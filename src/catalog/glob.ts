// Minimal glob for tool-name patterns: `*` any run, `?` one character; everything else literal.

const cache = new Map<string, RegExp>();

export function globToRegExp(pattern: string): RegExp {
  let re = cache.get(pattern);
  if (!re) {
    const body = pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.');
    re = new RegExp(`^${body}$`);
    cache.set(pattern, re);
  }
  return re;
}

export function matchesGlob(name: string, pattern: string): boolean {
  return pattern === name || globToRegExp(pattern).test(name);
}

export function matchesAny(name: string, patterns: readonly string[]): boolean {
  return patterns.some((p) => matchesGlob(name, p));
}
