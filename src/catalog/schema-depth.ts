// A server may send a schema nested hundreds of levels deep; Pi (and the model APIs behind it) walk
// schemas recursively and fail every request with "Maximum call stack size exceeded". Such a schema
// is cut at a bounded depth before anything registers or walks it: deeper parts accept anything, and
// the server still checks the arguments. Measuring and cutting never go deeper than the bound.

import { setOwn } from '../plain-object.ts';
import type { JsonSchema } from '../ports/mcp.ts';

/** JSON nesting levels kept (about 30 levels of nested objects; real tools stay far below). */
export const MAX_SCHEMA_DEPTH = 64;

/** The schema itself when it is shallow enough, else a copy cut at MAX_SCHEMA_DEPTH (objects there become `{}`). */
export function boundedSchema(
  schema: JsonSchema,
  max = MAX_SCHEMA_DEPTH,
): { schema: JsonSchema; cut: boolean } {
  if (!deeperThan(schema, max)) return { schema, cut: false };
  const root: Record<string, unknown> = {};
  const stack: Array<
    [source: Record<string, unknown>, target: Record<string, unknown> | unknown[], depth: number]
  > = [[schema, root, 1]];
  while (stack.length > 0) {
    const [source, target, depth] = stack.pop()!;
    for (const [key, value] of Object.entries(source)) {
      let copy: unknown = value;
      if (typeof value === 'object' && value !== null) {
        if (depth + 1 >= max) {
          // An array cut here (enum, required) is left out; a schema or map becomes "anything".
          if (Array.isArray(value)) continue;
          copy = {};
        } else {
          copy = Array.isArray(value) ? [] : {};
          stack.push([value as Record<string, unknown>, copy as Record<string, unknown>, depth + 1]);
        }
      }
      if (Array.isArray(target)) target.push(copy);
      else setOwn(target, key, copy);
    }
  }
  return { schema: root, cut: true };
}

/** Recursive, but never deeper than `max`: it stops there. */
function deeperThan(node: object, max: number, depth = 0): boolean {
  if (depth >= max) return true;
  for (const key in node) {
    const child = (node as Record<string, unknown>)[key];
    if (typeof child === 'object' && child !== null && deeperThan(child, max, depth + 1)) return true;
  }
  return false;
}
