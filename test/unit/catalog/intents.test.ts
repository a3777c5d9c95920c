import { describe, expect, it } from 'vitest';
import { splitIntents } from '../../../src/catalog/search/intents.ts';

describe('splitIntents', () => {
  it('splits a query that asks for several things at the joining words', () => {
    expect(splitIntents('list my open pull requests and post a summary to the team channel')).toEqual([
      'list my open pull requests',
      'post a summary to the team channel',
    ]);
    expect(splitIntents('clone the repo, then run the test suite; open an issue for failures')).toEqual([
      'clone the repo',
      'run the test suite',
      'open an issue for failures',
    ]);
  });

  it('keeps one request whole when a side has fewer than two content words', () => {
    expect(splitIntents('drag and drop the card')).toEqual([]);
    expect(splitIntents('turn latitude and longitude into an address')).toEqual([]);
    expect(splitIntents('take a screenshot of the page')).toEqual([]);
  });
});
