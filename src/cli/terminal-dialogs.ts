// The CLI's dialogs on a terminal: a choice by number (or its label; Enter takes the first), a line of
// text. What a server wrote is shown as plain text; end of input (Ctrl-D) or the signal cancels.

import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { SecretValues } from '../redact/index.ts';
import { plainText } from '../terminal-text.ts';
import type { FormDialogs } from '../tools/elicit-dialogs.ts';

export function terminalDialogs(input: Readable, output: Writable): FormDialogs {
  const ask = (question: string, signal?: AbortSignal) =>
    new Promise<string | undefined>((resolve) => {
      if (signal?.aborted) return resolve(undefined);
      const rl = createInterface({ input, output, terminal: false });
      let answered = false;
      const close = () => rl.close();
      signal?.addEventListener('abort', close, { once: true });
      rl.on('close', () => {
        signal?.removeEventListener('abort', close);
        if (!answered) resolve(undefined);
      });
      output.write(question);
      rl.once('line', (line) => {
        answered = true;
        resolve(line);
        rl.close();
      });
    });
  const shown = (text: string) => plainText(text);
  return {
    async select(title, options, opts) {
      const list = options.map((o, i) => `  ${i + 1}. ${shown(o)}`).join('\n');
      let problem = '';
      for (;;) {
        const answer = await ask(
          `${problem}${shown(title)}\n${list}\nChoose 1-${options.length} [1]: `,
          opts?.signal,
        );
        if (answer === undefined) return undefined;
        // Enter takes the first choice, as Pi's highlighted one (a default is listed first).
        const text = answer.trim() || '1';
        const index = /^\d+$/.test(text)
          ? Number(text) - 1
          : options.findIndex((o) => o.toLowerCase() === text.toLowerCase());
        if (index >= 0 && index < options.length) return options[index];
        problem = `"${shown(text)}" is not one of the choices.\n`;
      }
    },
    input(title, placeholder, opts) {
      // A placeholder the title already says (its default) is not said twice.
      const hint = placeholder && !title.includes(placeholder) ? ` [${shown(placeholder)}]` : '';
      return ask(`${shown(title)}${hint}: `, opts?.signal);
    },
  };
}

/**
 * `dialogs` showing a server's text as sent but for the secrets the runtime knows (a link's `?code=`
 * is the user's to open); a choice is answered with the option as given.
 */
export function hidingKnownSecrets(dialogs: FormDialogs, secrets: SecretValues): FormDialogs {
  return {
    async select(title, options, opts) {
      const shown = options.map((option) => secrets.redactKnown(option));
      const chosen = await dialogs.select(secrets.redactKnown(title), shown, opts);
      return chosen === undefined ? undefined : options[shown.indexOf(chosen)];
    },
    input: (title, placeholder, opts) =>
      dialogs.input(
        secrets.redactKnown(title),
        placeholder === undefined ? undefined : secrets.redactKnown(placeholder),
        opts,
      ),
  };
}
