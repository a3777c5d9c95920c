// Elicitation asked through two dialogs, select and input, whoever draws them (Pi's UI, the CLI's
// terminal): a form field by field (select for yes/no and choices, input for text, numbers and
// multi-choice lists), every answer validated against the requested schema and asked again with the
// problem; a URL request shows the link and waits. A cancelled dialog cancels at any point.

import type { ElicitAnswer, ElicitRequest } from '../ports/mcp.ts';
import {
  checkField,
  type FormField,
  fieldHint,
  formFields,
  formProblem,
  parseTyped,
  withDefaults,
} from './elicit-form.ts';

export interface FormDialogs {
  select(title: string, options: string[], opts?: { signal?: AbortSignal }): Promise<string | undefined>;
  input(title: string, placeholder?: string, opts?: { signal?: AbortSignal }): Promise<string | undefined>;
}

const ANSWER = 'Answer';
const DECLINE = 'Decline';
const OPENED = 'Done (I opened the link)';
const SKIP = '(leave empty)';
const YES = 'Yes';
const MAX_ATTEMPTS = 5;
const NO = 'No';

export async function elicitWithDialogs(
  ui: FormDialogs,
  server: string,
  request: ElicitRequest,
  signal: AbortSignal,
): Promise<ElicitAnswer> {
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
  for (const [index, field] of fields.entries()) {
    const place = fields.length > 1 ? `field ${index + 1} of ${fields.length}` : '';
    let problem: string | undefined;
    for (let attempt = 1; ; attempt++) {
      // A client that keeps sending the same wrong answer (a script, a confused user) ends as a cancel.
      if (attempt > MAX_ATTEMPTS) return { action: 'cancel' };
      const asked = await askField(ui, field, problem, place, opts);
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
  ui: FormDialogs,
  field: FormField,
  problem: string | undefined,
  place: string,
  opts: { signal: AbortSignal },
): Promise<Asked> {
  // What the field accepts is said up front (range, format, default), not only after a wrong answer.
  const choices =
    field.kind === 'multi' ? `comma-separated: ${(field.options ?? []).map((o) => o.label).join(', ')}` : '';
  const facts = [place, choices, fieldHint(field)].filter(Boolean).join('; ');
  const title = [
    problem ? `${problem}. ` : '',
    field.label,
    field.required ? '' : ' (optional)',
    field.description ? ` — ${field.description}` : '',
    facts ? ` (${facts})` : '',
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
    // The default comes first and says so; an optional field without one starts on leaving it empty,
    // so Enter through a form agrees to nothing.
    const ordered = [...choices].sort(
      (a, b) => Number(b.value === field.default) - Number(a.value === field.default),
    );
    const labels = ordered.map((c) => (c.value === field.default ? `${c.label} (default)` : c.label));
    const listed = !optional ? labels : field.default === undefined ? [SKIP, ...labels] : [...labels, SKIP];
    const picked = await ui.select(title, listed, opts);
    if (picked === undefined) return { kind: 'cancel' };
    if (picked === SKIP) return { kind: 'skip' };
    return { kind: 'value', value: ordered[labels.indexOf(picked)]?.value };
  }
  const placeholder = field.default !== undefined ? `default: ${String(field.default)}` : choices;
  const typed = await ui.input(title, placeholder, opts);
  if (typed === undefined) return { kind: 'cancel' };
  if (typed.trim() === '') {
    if (field.default !== undefined) return { kind: 'value', value: field.default };
    if (optional) return { kind: 'skip' };
  }
  return { kind: 'typed', text: typed };
}
