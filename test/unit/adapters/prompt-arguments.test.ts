import { describe, expect, it } from 'vitest';
import { parsePromptArguments } from '../../../src/adapters/pi/prompts.ts';

describe('prompt command arguments', () => {
  it('takes name=value pairs, with quotes for spaces', () => {
    expect(parsePromptArguments('city="New York" state=NY', ['city', 'state'])).toEqual({
      city: 'New York',
      state: 'NY',
    });
  });
  it('fills declared arguments in order from bare words', () => {
    expect(parsePromptArguments('Paris France', ['city', 'country'])).toEqual({
      city: 'Paris',
      country: 'France',
    });
  });
  it('gives the whole text to a prompt with one argument', () => {
    expect(parsePromptArguments('review src/a.ts carefully', ['request'])).toEqual({
      request: 'review src/a.ts carefully',
    });
  });
  it('returns nothing for empty text', () => {
    expect(parsePromptArguments('  ', ['a'])).toEqual({});
  });
});
