// docs/config.md carries the key tables rendered from the schemas; they must not drift.
// Regenerate with: UPDATE_DOCS=1 npx vitest run test/unit/config/reference.test.ts

import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DIAGNOSTIC_CODES } from '../../../src/config/diagnostics.ts';
import { REFERENCE_END, REFERENCE_START, renderConfigReference } from '../../../src/config/reference.ts';
import { propertiesOf, ServerSchema, SettingsSchema } from '../../../src/config/schema.ts';

const DOC = join(dirname(fileURLToPath(import.meta.url)), '../../../docs/config.md');

function generatedBlock(text: string): string | undefined {
  const start = text.indexOf(REFERENCE_START);
  const end = text.indexOf(REFERENCE_END);
  if (start < 0 || end < start) return undefined;
  return text.slice(start + REFERENCE_START.length, end).trim();
}

describe('docs/config.md', () => {
  it('contains the reference rendered from the schemas', () => {
    const rendered = renderConfigReference().trim();
    let text = readFileSync(DOC, 'utf8');
    if (process.env.UPDATE_DOCS === '1') {
      const start = text.indexOf(REFERENCE_START);
      const end = text.indexOf(REFERENCE_END);
      text = `${text.slice(0, start + REFERENCE_START.length)}\n${rendered}\n${text.slice(end)}`;
      writeFileSync(DOC, text);
    }
    expect(generatedBlock(text), 'run UPDATE_DOCS=1 npx vitest run test/unit/config/reference.test.ts').toBe(
      rendered,
    );
  });

  it('documents every server key, setting and diagnostic code with a default column', () => {
    const rendered = renderConfigReference();
    for (const key of [
      ...Object.keys(propertiesOf(ServerSchema)),
      ...Object.keys(propertiesOf(SettingsSchema)),
    ]) {
      expect(rendered).toMatch(new RegExp(`^\\| \`${key}\` \\|[^\\n]*\\|[^\\n]*\\|[^\\n]*\\|$`, 'm'));
    }
    for (const code of Object.keys(DIAGNOSTIC_CODES)) expect(rendered).toContain(`| \`${code}\` |`);
  });

  it('every server key and setting has a description', () => {
    for (const [key, schema] of Object.entries({
      ...propertiesOf(ServerSchema),
      ...propertiesOf(SettingsSchema),
    })) {
      expect((schema as { description?: string }).description, key).toBeTruthy();
    }
  });
});
