// A tool schema nested thousands of levels deep overflows the stack of whatever walks it recursively:
// the SDK's result parsing first, then the cache file, the inspector and the catalog. A tools/list
// answer's schemas are cut as the message arrives, before the SDK reads it; the catalog cuts further
// and says so (src/catalog/schema-depth.ts).

import type { Transport } from '@modelcontextprotocol/client';
import { boundedSchema, MAX_SCHEMA_DEPTH } from '../../catalog/schema-depth.ts';
import { isPlainObject } from '../../plain-object.ts';

const LISTED_SCHEMA_DEPTH = 4 * MAX_SCHEMA_DEPTH;

/** Call after any other onmessage wrapping, before connect (the SDK runs this hook before it parses). */
export function boundListedSchemas(transport: Transport): void {
  const previous = transport.onmessage;
  transport.onmessage = (message, extra) => {
    previous?.(message, extra);
    const tools = (message as { result?: { tools?: unknown } }).result?.tools;
    if (!Array.isArray(tools)) return;
    for (const tool of tools) {
      if (!isPlainObject(tool)) continue;
      for (const key of ['inputSchema', 'outputSchema'] as const) {
        const schema = tool[key];
        if (isPlainObject(schema)) tool[key] = boundedSchema(schema, LISTED_SCHEMA_DEPTH).schema;
      }
    }
  };
}
