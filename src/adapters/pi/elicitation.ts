// Elicitation through Pi's dialogs (ctx.ui): a form is asked field by field (select for yes/no and
// choices, input for text, numbers and multi-choice lists), every answer validated against the
// requested schema and asked again with the problem; a URL request shows the link and waits. Escape
// (a cancelled dialog) cancels at any point. Without UI (print, JSON) the server is told why not.

import { type ElicitAnswer, type ElicitRequest, HostRefusal } from '../../ports/mcp.ts';
import type { SecretValues } from '../../redact/index.ts';
import { elicitWithDialogs } from '../../tools/elicit-dialogs.ts';
import { wordsFor } from '../../tools/surface-words.ts';
import type { PiContext, PiDialogs } from './pi-types.ts';

/** Dialogs of one Pi at a time: two servers asking at once get their turns one after the other. */
export function createElicitor(currentContext: () => PiContext | undefined, secrets: SecretValues) {
  let queue: Promise<unknown> = Promise.resolve();
  return (server: string, request: ElicitRequest, signal: AbortSignal): Promise<ElicitAnswer> => {
    const run = queue.then(() => elicit(currentContext(), secrets, server, request, signal));
    queue = run.catch(() => undefined);
    return run;
  };
}

async function elicit(
  ctx: PiContext | undefined,
  secrets: SecretValues,
  server: string,
  request: ElicitRequest,
  signal: AbortSignal,
): Promise<ElicitAnswer> {
  const ui = ctx?.hasUI ? dialogsOf(ctx, secrets) : undefined;
  if (!ui) {
    const mode = ctx?.mode ?? 'non-interactive';
    throw new HostRefusal(wordsFor('pi').questionDeclined(request.message, `${mode} mode`));
  }
  return elicitWithDialogs(ui, server, request, signal);
}

/**
 * Pi's dialogs, with every title passed through the one redaction: a server's text and links are
 * shown as sent but for the secrets we know (a link's `?code=` is the user's to open).
 */
function dialogsOf(ctx: PiContext, secrets: SecretValues): PiDialogs | undefined {
  const ui = ctx.ui as Partial<PiDialogs>;
  if (typeof ui.select !== 'function' || typeof ui.input !== 'function') return undefined;
  const dialogs = ui as PiDialogs;
  return {
    select: (title, options, opts) => dialogs.select(secrets.redactKnown(title), options, opts),
    input: (title, placeholder, opts) => dialogs.input(secrets.redactKnown(title), placeholder, opts),
    confirm: (title, message, opts) =>
      dialogs.confirm(secrets.redactKnown(title), secrets.redactKnown(message), opts),
  };
}
