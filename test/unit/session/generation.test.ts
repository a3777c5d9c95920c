import { describe, expect, it } from 'vitest';
import { generationGuard } from '../../../src/session/generation.ts';

describe('generationGuard', () => {
  it('is true while the generation read at its making is still the one read now', () => {
    let generation: number | undefined = 3;
    const stillCurrent = generationGuard(() => generation);
    expect(stillCurrent()).toBe(true);
    generation = undefined; // the session is stopping: no generation runs
    expect(stillCurrent()).toBe(false);
    generation = 4;
    expect(stillCurrent()).toBe(false);
    expect(generationGuard(() => generation)()).toBe(true);
  });
});
