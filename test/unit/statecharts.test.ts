// Every generated statechart must be valid Mermaid. mermaid.parse needs no layout, only DOMPurify's
// hooks (used to sanitise labels for rendering), and DOMPurify needs a DOM window. jsdom 31 cannot
// load on Node 20 (its undici needs zlib zstd, Node >= 22.22), so DOMPurify gets a no-op shim: label
// sanitising does not decide whether a diagram parses. Must run before mermaid is imported.
// Mermaid is not a dependency: `npm run provision` installs it into .cache/mermaid (Node >= 22 engines).

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { mermaidPaths, mermaidProvisioned } from '../../scripts/mermaid-paths.mjs';

if (!mermaidProvisioned()) throw new Error('Mermaid is not provisioned: run `npm run provision` first');
const { default: DOMPurify } = await import(pathToFileURL(mermaidPaths.dompurify).href);
Object.assign(DOMPurify, {
  addHook: () => undefined,
  removeHook: () => undefined,
  sanitize: (text: string) => text,
});
const { default: mermaid } = await import(pathToFileURL(mermaidPaths.module).href);

const dir = join(import.meta.dirname, '..', '..', 'docs', 'statecharts');
const files = readdirSync(dir).filter((f) => f.endsWith('.mmd'));

describe('docs/statecharts', () => {
  it('has the server chart', () => {
    expect(files).toContain('server.mmd');
  });

  it.each(files)('%s is a valid Mermaid state diagram', async (file) => {
    const result = await mermaid.parse(readFileSync(join(dir, file), 'utf8'));
    expect(result).toMatchObject({ diagramType: expect.stringMatching(/^stateDiagram/) });
  });

  it('the parser rejects a broken diagram (the check can fail)', async () => {
    await expect(mermaid.parse('stateDiagram-v2\n  state a {\n  a --> : }')).rejects.toThrow();
  });
});
