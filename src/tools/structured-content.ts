// Whether a tool result's text already carries its `structuredContent`, so the model is not sent the
// same data twice (a filesystem server's `read_text_file` sends the file as text and again as
// `{ content }`). Decided by content, not by exact JSON: the value is carried when a text block parses
// as JSON equal to it (key order and spacing aside), or when every scalar in it (string, number,
// boolean) appears in the text, whitespace runs counted as one space. Anything else is added as JSON:
// when unsure, the model gets the data twice rather than not at all. docs/results.md states the rule.

const MAX_LEAVES = 2_000;

export function textCarries(texts: readonly string[], value: unknown): boolean {
  if (texts.some((t) => sameJson(t, value))) return true;
  const leaves = scalars(value);
  // Each leaf is looked for in the whole text: a value with very many leaves is sent rather than searched.
  if (leaves.length > MAX_LEAVES) return false;
  const haystack = normalize(texts.join('\n'));
  const lower = haystack.toLowerCase();
  return leaves.every((leaf) => {
    if (typeof leaf === 'string') return haystack.includes(normalize(leaf));
    if (typeof leaf === 'boolean') return new RegExp(`\\b${leaf}\\b`).test(lower);
    return new RegExp(`(^|[^0-9.])${literal(String(leaf))}($|[^0-9])`).test(haystack);
  });
}

type Scalar = string | number | boolean;

/** The value's strings, numbers and booleans (nulls and empty strings say nothing). */
function scalars(value: unknown, out: Scalar[] = []): Scalar[] {
  if (typeof value === 'string') {
    if (value.trim() !== '') out.push(value);
  } else if (typeof value === 'number' || typeof value === 'boolean') out.push(value);
  else if (Array.isArray(value)) for (const item of value) scalars(item, out);
  else if (value !== null && typeof value === 'object')
    for (const item of Object.values(value as Record<string, unknown>)) scalars(item, out);
  return out;
}

function normalize(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function sameJson(text: string, value: unknown): boolean {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return false;
  try {
    return canonical(JSON.parse(trimmed)) === canonical(value);
  } catch {
    return false;
  }
}

/** JSON with object keys sorted, so key order does not make equal values differ. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}
