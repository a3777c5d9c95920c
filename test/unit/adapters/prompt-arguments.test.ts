import { describe, expect, it } from 'vitest';
import { argumentAt, parsePromptArguments } from '../../../src/adapters/pi/prompts.ts';

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

  it('finds the argument being typed, for the server to complete', () => {
    const names = ['department', 'name'];
    expect(argumentAt('department=Eng', names)).toEqual({
      name: 'department',
      value: 'Eng',
      before: 'department=',
      context: {},
    });
    expect(argumentAt('department=Sales name=D', names)).toEqual({
      name: 'name',
      value: 'D',
      before: 'department=Sales name=',
      context: { department: 'Sales' },
    });
    // By position: the next argument not given yet.
    expect(argumentAt('Sales D', names)).toEqual({
      name: 'name',
      value: 'D',
      before: 'Sales ',
      context: { department: 'Sales' },
    });
    expect(argumentAt('', names)).toMatchObject({ name: 'department', value: '' });
    // One argument takes the whole text: completed while it is one word.
    expect(argumentAt('rev', ['request'])).toEqual({
      name: 'request',
      value: 'rev',
      before: '',
      context: {},
    });
    expect(argumentAt('review src', ['request'])).toBeUndefined();
    // Inside quotes, an unknown name, or every argument given: nothing to complete.
    expect(argumentAt('department="Sa', names)).toBeUndefined();
    expect(argumentAt('team=x', names)).toBeUndefined();
    expect(argumentAt('a b c', names)).toBeUndefined();
    expect(argumentAt('x', [])).toBeUndefined();
  });
});
