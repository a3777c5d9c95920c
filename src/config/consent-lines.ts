// What Allow would do for one server of a project file, as labelled lines (DESIGN rule 13): what it
// runs or where it connects, every value that runs a command (verbatim), every `${VAR}` it would send
// and where (by name, never its value), cwd, caFile, OAuth settings, the environment it gets, a
// sign-in of the user's it would use, and the user's own server a Deny keeps. The one description
// used by the TUI's consent question (src/adapters/pi/consent-dialog.ts) and `pi-mcp-actors allow`'s
// list (src/cli/allow-command.ts). A project wrote every text here: each passes the one sanitizer.

import { plainLine } from '../terminal-text.ts';
import { valueForm } from './command-values.ts';
import { interpolate } from './interpolate.ts';
import { shellWord } from './load.ts';
import type { PendingServer, ServerFields } from './types.ts';

export interface ConsentLine {
  /** What the line is about (`runs`, `url`, `header X-Id runs`, `sends ${TOKEN}`…); '' for a sentence. */
  label: string;
  text: string;
}

export interface ConsentFacts {
  /** Shown as `~` in paths. */
  homeDir?: string;
  /** The user already has a sign-in for this server's name and URL (../auth/sign-in-exists.ts). */
  signedIn?: boolean;
}

/** Longest command or value shown whole; a longer one says where to read the rest. */
const MAX_SHOWN = 1_000;

export function consentLines(server: PendingServer, facts: ConsentFacts = {}): ConsentLine[] {
  const fields: ServerFields = server.fields ?? {};
  const lines: ConsentLine[] = [];
  const add = (label: string, text: string) => lines.push({ label: show(label), text: show(text) });
  const sends = new Map<string, string[]>();
  /** Notes the `${VAR}`s of a value as written, and where it would send them. */
  const scan = (value: unknown, where: string) => {
    for (const name of variablesIn(String(value))) sends.set(name, [...(sends.get(name) ?? []), where]);
  };
  const commands: ConsentLine[] = [];
  /** A value that may be `!command`: the command is listed verbatim, else its variables are noted. */
  const valued = (value: unknown, where: string) => {
    const form = valueForm(String(value));
    if (form.kind === 'command') commands.push({ label: `${where} runs`, text: whole(form.command, server) });
    else scan(form.text, where);
  };

  if (fields.socket !== undefined) {
    add('socket', fields.socket);
    scan(fields.socket, 'socket');
  } else if (fields.command !== undefined) {
    add('runs', whole(server.runs, server));
    scan(fields.command, 'command');
    for (const [index, arg] of (fields.args ?? []).entries()) scan(arg, `argument ${index + 1}`);
    if (fields.cwd !== undefined) {
      add('cwd', fields.cwd);
      scan(fields.cwd, 'cwd');
    }
  } else if (fields.url !== undefined || fields.serverUrl !== undefined) {
    const url = fields.url ?? fields.serverUrl ?? '';
    add('url', whole(url, server));
    scan(url, 'URL');
  } else add('runs', whole(server.runs, server));
  if (server.changed) add('asked again', server.changed);
  if (server.scripts)
    add('covers the content of', `${Object.keys(server.scripts).join(', ')} (not the files they load)`);

  const env = Object.entries(fields.env ?? {});
  for (const [key, value] of env) valued(value, `env ${key}`);
  if (server.inheritsEnv)
    add(
      'environment',
      `${env.length > 0 ? `${env.map(([key]) => key).join(', ')} and ` : ''}your whole environment`,
    );
  else if (env.length > 0) add('environment', env.map(([key]) => key).join(', '));

  const headers = Object.entries(fields.headers ?? {});
  if (headers.length > 0) add('headers', headers.map(([key]) => key).join(', '));
  for (const [key, value] of headers) valued(value, `header ${key}`);
  if (fields.bearerToken !== undefined) valued(fields.bearerToken, 'bearer token');
  if (fields.bearerTokenEnv !== undefined)
    sends.set(fields.bearerTokenEnv, [...(sends.get(fields.bearerTokenEnv) ?? []), 'bearer token']);

  const headersCommand = fields.requestHeadersCommand;
  if (headersCommand !== undefined) {
    const words = [headersCommand.command, ...(headersCommand.args ?? [])];
    commands.push({
      label: 'requestHeadersCommand runs',
      text: `${whole(words.map(shellWord).join(' '), server)} (before each request; its output adds headers)`,
    });
    for (const word of words) scan(word, 'requestHeadersCommand');
    for (const [key, value] of Object.entries(headersCommand.env ?? {}))
      scan(value, `requestHeadersCommand env ${key}`);
  }
  for (const line of commands) add(line.label, line.text);

  if (fields.caFile !== undefined) {
    add('caFile', fields.caFile);
    scan(fields.caFile, 'caFile');
  }
  const oauth = fields.oauth;
  if (oauth !== undefined || fields.auth === 'oauth') {
    const settings = Object.entries(oauth ?? {}).map(([key, value]) => {
      if (typeof value === 'string' && INTERPOLATED_OAUTH_KEYS.has(key)) scan(value, `oauth ${key}`);
      if (typeof value === 'string' && SECRET_OAUTH_KEYS.has(key)) return `${key} (set)`;
      return `${key} ${typeof value === 'string' ? value : JSON.stringify(value)}`;
    });
    add('oauth', settings.length > 0 ? settings.join(', ') : 'signs in with OAuth (settings discovered)');
  }
  for (const [name, where] of sends)
    add(`sends \${${name}}`, `your value, in ${[...new Set(where)].join(', ')}`);
  if (facts.signedIn)
    add(
      'sign-in',
      `would use your existing sign-in to "${server.name}" at ${fields.url ?? fields.serverUrl ?? ''}`,
    );
  if (server.replaces !== undefined)
    add('', `Deny keeps your own ${server.name} from ${tilde(server.replaces, facts.homeDir)}`);
  return lines;
}

/** The lines as an indented block (labels `label: text`, sentences alone). */
export function renderConsentLines(lines: ConsentLine[], indent = '  '): string {
  return lines.map(({ label, text }) => `${indent}${label === '' ? text : `${label}: ${text}`}`).join('\n');
}

/** OAuth values that are secrets of the entry itself: their presence is shown, not the text. */
const SECRET_OAUTH_KEYS = new Set(['clientSecret', 'privateKey']);
/** The OAuth values that take `${VAR}`s (as ./resolve.ts reads them); the others are used as written. */
const INTERPOLATED_OAUTH_KEYS = new Set(['clientId', 'clientSecret', 'privateKey', 'privateKeyFile']);

/** The variable names a value as written refers to (`${VAR}`, `${VAR:-x}`, `${env:VAR}`, `$env:VAR`, `{env:VAR}`). */
export function variablesIn(text: string): string[] {
  const names = new Set<string>();
  const env = new Proxy({} as Record<string, string | undefined>, {
    // ${workspaceFolder} and ${userHome} are folders of ours, not the user's variables.
    get: (_, key) => {
      if (typeof key !== 'string' || key === 'workspaceFolder' || key === 'userHome') return undefined;
      names.add(key);
      return 'x';
    },
  });
  interpolate(text, { env, homeDir: '', cwd: '' });
  return [...names];
}

/** A command or value shown whole (a line break as ⏎), or up to MAX_SHOWN with where the rest is. */
function whole(text: string, server: PendingServer): string {
  const oneLine = text.replace(/\r?\n/g, ' ⏎ ');
  return oneLine.length <= MAX_SHOWN
    ? oneLine
    : `${oneLine.slice(0, MAX_SHOWN)}… (${oneLine.length - MAX_SHOWN} more characters: see ${server.source.keyPath} in ${server.source.file})`;
}

function show(text: string): string {
  return plainLine(text);
}

function tilde(file: string, homeDir: string | undefined): string {
  if (!homeDir) return file;
  const home = homeDir.replace(/[\\/]+$/, '');
  return file === home || file.startsWith(`${home}/`) ? `~${file.slice(home.length)}` : file;
}
