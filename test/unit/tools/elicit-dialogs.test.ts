// A form asked through two dialogs (Pi's or the terminal's): what each question says before the
// user answers, and what answers are taken.

import { describe, expect, it } from 'vitest';
import { elicitWithDialogs, type FormDialogs } from '../../../src/tools/elicit-dialogs.ts';
import { checkField, formFields, parseTyped } from '../../../src/tools/elicit-form.ts';

const schema = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', default: 'Ada' },
    age: { type: 'integer', title: 'Age', minimum: 0, maximum: 150, default: 30 },
    born: { type: 'string', title: 'Born', format: 'date' },
    tags: {
      type: 'array',
      title: 'Tags',
      items: {
        anyOf: [
          { const: 'a', title: 'alpha' },
          { const: 'b', title: 'beta' },
        ],
      },
      default: ['b'],
    },
  },
  required: ['born'],
};

/** Answers inputs from a list, records every title. */
function scripted(answers: string[]): { ui: FormDialogs; titles: string[] } {
  const titles: string[] = [];
  return {
    titles,
    ui: {
      select: async (title, options) => {
        titles.push(title);
        return options[0];
      },
      input: async (title) => {
        titles.push(title);
        return answers.shift() ?? '';
      },
    },
  };
}

describe('form dialogs', () => {
  it('say the field number, the range and the default of text and number fields up front', async () => {
    const { ui, titles } = scripted(['', '', '2001-02-03', 'ALPHA']);
    const answer = await elicitWithDialogs(
      ui,
      'srv',
      { mode: 'form', message: 'Who?', requestedSchema: schema },
      new AbortController().signal,
    );
    expect(titles[1]).toBe('Name (optional) (field 1 of 4; default: Ada)');
    expect(titles[2]).toBe('Age (optional) (field 2 of 4; a whole number from 0 to 150; default: 30)');
    expect(titles[3]).toBe('Born (field 3 of 4; date (YYYY-MM-DD))');
    expect(titles[4]).toBe('Tags (optional) (field 4 of 4; comma-separated: alpha, beta; default: beta)');
    expect(answer).toEqual({
      action: 'accept',
      content: { name: 'Ada', age: 30, born: '2001-02-03', tags: ['a'] },
    });
  });

  it('start an optional yes/no or choice on leaving it empty: Enter through the form agrees to nothing', async () => {
    const options: string[][] = [];
    const ui: FormDialogs = {
      select: async (_title, offered) => {
        options.push(offered);
        return offered[0];
      },
      input: async () => '',
    };
    const answer = await elicitWithDialogs(
      ui,
      'srv',
      {
        mode: 'form',
        message: 'Sign up?',
        requestedSchema: {
          type: 'object',
          properties: {
            terms: { type: 'boolean', title: 'Accept the terms' },
            news: { type: 'boolean', title: 'Newsletter', default: false },
            plan: { type: 'string', enum: ['free', 'pro'] },
            sure: { type: 'boolean', title: 'Sure' },
          },
          required: ['sure'],
        },
      },
      new AbortController().signal,
    );
    expect(options.slice(1)).toEqual([
      ['(leave empty)', 'Yes', 'No'],
      ['No (default)', 'Yes', '(leave empty)'],
      ['(leave empty)', 'free', 'pro'],
      ['Yes', 'No'],
    ]);
    expect(answer).toEqual({ action: 'accept', content: { news: false, sure: true } });
  });

  it('refuse a date that does not exist and take choices in any case', () => {
    const fields = formFields(schema);
    const born = fields.find((f) => f.name === 'born')!;
    expect(checkField(born, '1815-13-45')).toEqual({
      ok: false,
      error: 'expected a valid date (YYYY-MM-DD)',
    });
    expect(checkField(born, '2023-02-29').ok).toBe(false);
    expect(checkField(born, '2024-02-29').ok).toBe(true);
    const tags = fields.find((f) => f.name === 'tags')!;
    expect(parseTyped(tags, 'Alpha, BETA')).toEqual({ ok: true, value: ['a', 'b'] });
  });
});
