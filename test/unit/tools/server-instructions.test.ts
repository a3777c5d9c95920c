import { describe, expect, it } from 'vitest';
import { INSTRUCTIONS_CAP, instructionsNote } from '../../../src/tools/server-instructions.ts';

describe('instructionsNote', () => {
  it('names the server and keeps short instructions whole', () => {
    expect(instructionsNote('docs', '  Use search first.\n')).toBe(
      'Instructions from MCP server "docs":\nUse search first.',
    );
  });
  it('cuts long instructions at the cap and says so', () => {
    const note = instructionsNote('big', 'x'.repeat(INSTRUCTIONS_CAP * 3))!;
    expect(note.length).toBeLessThan(INSTRUCTIONS_CAP + 100);
    expect(note).toMatch(/… \(cut at 2000 characters\)$/);
  });
  it('says nothing for empty instructions', () => {
    expect(instructionsNote('none', '   ')).toBeUndefined();
  });
});
