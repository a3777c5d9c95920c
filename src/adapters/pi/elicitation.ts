// Elicitation through Pi's dialogs (ctx.ui): a form is asked field by field (select for yes/no and
// choices, input for text, numbers and multi-choice lists), every answer validated against the
// requested schema and asked again with the problem; a URL request shows the link and waits. Escape
// (a cancelled dialog) cancels at any point. Without UI (print, JSON) the server is told why not.

import { redactKnown } from '../../redact.ts';
import {
  checkField,
  type FormField,
  formFields,
  formProblem,
  parseTyped,
  withDefaults,
} from '../../tools/elicit-form.ts';
import { type ElicitAnswer, type ElicitRequest, HostRefusal } from '../mcp/connection-port.ts';
import type { PiContext, PiDialogs } from './bridge.ts';

const ANSWER = 'Answer';
const DECLINE = 'Decline';
const OPENED = 'Done (I opened the link)';
const SKIP = '(leave empty)';
const YES = 'Yes';
const MAX_ATTEMPTS = 5;
const NO = 'No';

/** Dialogs of one Pi at a time: two servers asking at once get their turns one after the other. */
export function createElicitor(currentContext: () => PiContext | undefined) {
  let queue: Promise<unknown> = Promise.resolve();
  return (server: string, request: ElicitRequest, signal: AbortSignal): Promise<ElicitAnswer> => {
    const run = queue.then(() => elicit(currentContext(), server, request, signal));
    queue = run.catch(() => undefined);
    return run;
  };
}

async function elicit(
  ctx: PiContext | undefined,
  server: string,
  request: ElicitRequest,
  signal: AbortSignal,
): Promise<ElicitAnswer> {
  const ui = ctx?.hasUI ? dialogsOf(ctx) : undefined;
  if (!ui) {
    const mode = ctx?.mode ?? 'non-interactive';
    throw new HostRefusal(
      `Declined: Pi runs without an interactive UI (${mode} mode), so the user cannot be asked "${request.message}". Ask the user in the conversation instead.`,
    );
  }
  const opts = { signal };
  if (request.mode === 'url') {
    const choice = await ui.select(
      `MCP server "${server}" asks you to open a link: ${request.message}\n${request.url}`,
      [OPENED, DECLINE],
      opts,
    );
    if (choice === undefined) return { action: 'cancel' };
    return choice === OPENED ? { action: 'accept' } : { action: 'decline' };
  }
  const start = await ui.select(`MCP server "${server}" asks: ${request.message}`, [ANSWER, DECLINE], opts);
  if (start === undefined) return { action: 'cancel' };
  if (start === DECLINE) return { action: 'decline' };
  const fields = formFields(request.requestedSchema);
  const content: Record<string, unknown> = {};
  for (const field of fields) {
    let problem: string | undefined;
    for (let attempt = 1; ; attempt++) {
      // A client that keeps sending the same wrong answer (a script, a confused user) ends as a cancel.
      if (attempt > MAX_ATTEMPTS) return { action: 'cancel' };
      const asked = await askField(ui, field, problem, opts);
      if (asked.kind === 'cancel') return { action: 'cancel' };
      if (asked.kind === 'skip') break;
      const checked = asked.kind === 'typed' ? parseTyped(field, asked.text) : checkField(field, asked.value);
      if (checked.ok) {
        content[field.name] = checked.value;
        break;
      }
      problem = checked.error;
    }
  }
  const answer = withDefaults(fields, content);
  const problem = formProblem(fields, answer);
  // Every field was checked as it was entered; a schema the dialogs cannot satisfy is cancelled, not sent half-valid.
  if (problem) return { action: 'cancel' };
  return { action: 'accept', content: answer };
}

type Asked =
  | { kind: 'cancel' }
  | { kind: 'skip' }
  | { kind: 'typed'; text: string }
  | { kind: 'value'; value: unknown };

async function askField(
  ui: PiDialogs,
  field: FormField,
  problem: string | undefined,
  opts: { signal: AbortSignal },
): Promise<Asked> {
  const title = [
    problem ? `${problem}. ` : '',
    field.label,
    field.required ? '' : ' (optional)',
    field.description ? ` — ${field.description}` : '',
  ].join('');
  const optional = !field.required;
  if (field.kind === 'boolean' || field.kind === 'enum') {
    const choices =
      field.kind === 'boolean'
        ? [
            { value: true, label: YES },
            { value: false, label: NO },
          ]
        : (field.options ?? []).map((o) => ({ value: o.value as unknown, label: o.label }));
    // The default comes first and says so.
    const ordered = [...choices].sort(
      (a, b) => Number(b.value === field.default) - Number(a.value === field.default),
    );
    const labels = ordered.map((c) => (c.value === field.default ? `${c.label} (default)` : c.label));
    const picked = await ui.select(title, optional ? [...labels, SKIP] : labels, opts);
    if (picked === undefined) return { kind: 'cancel' };
    if (picked === SKIP) return { kind: 'skip' };
    return { kind: 'value', value: ordered[labels.indexOf(picked)]?.value };
  }
  const hint =
    field.kind === 'multi'
      ? `comma-separated: ${(field.options ?? []).map((o) => o.label).join(', ')}`
      : field.default !== undefined
        ? `default: ${String(field.default)}`
        : '';
  const typed = await ui.input(field.kind === 'multi' ? `${title} (${hint})` : title, hint, opts);
  if (typed === undefined) return { kind: 'cancel' };
  if (typed.trim() === '') {
    if (field.default !== undefined) return { kind: 'value', value: field.default };
    if (optional) return { kind: 'skip' };
  }
  return { kind: 'typed', text: typed };
}

/**
 * Pi's dialogs, with every title passed through the one redaction: a server's text and links are
 * shown as sent but for the secrets we know (a link's `?code=` is the user's to open).
 */
function dialogsOf(ctx: PiContext): PiDialogs | undefined {
  const ui = ctx.ui as Partial<PiDialogs>;
  if (typeof ui.select !== 'function' || typeof ui.input !== 'function') return undefined;
  const dialogs = ui as PiDialogs;
  return {
    select: (title, options, opts) => dialogs.select(redactKnown(title), options, opts),
    input: (title, placeholder, opts) => dialogs.input(redactKnown(title), placeholder, opts),
    confirm: (title, message, opts) => dialogs.confirm(redactKnown(title), redactKnown(message), opts),
  };
}
