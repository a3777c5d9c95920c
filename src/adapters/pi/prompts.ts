// A server's MCP prompts as Pi slash commands: /mcp__<server>__<prompt> [arguments]. Arguments are
// `name=value` pairs (quotes for spaces) or, in declared order, plain words; a prompt with one
// argument takes the whole text. Missing required arguments are asked for with Pi's input dialog
// (or named in an error without UI). The prompt's messages go to the model as a user message. The
// server's suggestions (MCP completion/complete) are offered while typing the arguments, and as
// choices in the dialog that asks for a missing one.

import type { PromptDescriptor } from '../../ports/mcp.ts';
import { promptCommandName } from '../../session/prompt-command-name.ts';
import type { PromptOutcome } from '../../session/prompts.ts';
import { plainLine } from '../../terminal-text.ts';
import type { PiContent } from '../../tools/content.ts';
import type { PiCommandDefinition, PiContext, PiDialogs } from './pi-types.ts';

export interface PromptCommandDeps {
  prompt(server: string, name: string, args: Record<string, string>): Promise<PromptOutcome>;
  /** The server's suggestions for an argument; `connect`: start the server for them if needed. */
  complete(
    server: string,
    prompt: string,
    argument: { name: string; value: string },
    context: Record<string, string>,
    options: { connect: boolean },
  ): Promise<string[]>;
  send(content: PiContent[], ctx: PiContext): void;
  tell(ctx: PiContext, text: string, level: 'info' | 'warning' | 'error'): void;
}

export function promptCommand(
  server: string,
  prompt: PromptDescriptor,
  deps: PromptCommandDeps,
): PiCommandDefinition {
  const declared = prompt.arguments ?? [];
  const usage = declared.map((a) => (a.required ? `${a.name}=…` : `[${a.name}=…]`)).join(' ');
  const about = prompt.description ?? prompt.title ?? `prompt ${prompt.name}`;
  const names = declared.map((a) => a.name);
  return {
    description: `MCP ${server}: ${about}${usage ? ` — ${usage}` : ''}`,
    // Typing never starts the server: suggestions come from one that is connected.
    getArgumentCompletions: async (typed) => {
      const at = argumentAt(typed, names);
      if (!at) return null;
      const values = await deps
        .complete(server, prompt.name, { name: at.name, value: at.value }, at.context, { connect: false })
        .catch(() => []);
      const items = values
        .map((value) => plainLine(value))
        .filter((value) => value !== at.value && !/\s|"/.test(value))
        .map((value) => ({ value: `${at.before}${value}`, label: value }));
      return items.length > 0 ? items : null;
    },
    handler: async (text, ctx) => {
      const args = parsePromptArguments(
        text,
        declared.map((a) => a.name),
      );
      for (const arg of declared) {
        if (!arg.required || args[arg.name] !== undefined) continue;
        const ui = ctx.hasUI && typeof ctx.ui.input === 'function' ? (ctx.ui as PiDialogs) : undefined;
        const answer =
          ui &&
          (await askArgument(ui, arg, (value) =>
            deps
              .complete(server, prompt.name, { name: arg.name, value }, args, { connect: true })
              .catch(() => []),
          ));
        if (answer === undefined) {
          deps.tell(
            ctx,
            `/${promptCommandName(server, prompt.name)} needs ${arg.name}. Usage: /${promptCommandName(server, prompt.name)} ${usage}`,
            'error',
          );
          return;
        }
        args[arg.name] = answer;
      }
      const outcome = await deps.prompt(server, prompt.name, args);
      if (!outcome.ok) {
        deps.tell(ctx, `MCP prompt ${server}/${prompt.name} failed: ${outcome.error}`, 'error');
        return;
      }
      deps.send(outcome.content, ctx);
    },
  };
}

const OTHER = 'Something else…';

/** A missing argument: the server's suggestions to choose from when it has some, else typed. */
async function askArgument(
  ui: PiDialogs,
  arg: { name: string; description?: string },
  suggest: (value: string) => Promise<string[]>,
): Promise<string | undefined> {
  const title = `${arg.name}${arg.description ? ` — ${arg.description}` : ''}`;
  const offered = (await suggest('')).map((value) => plainLine(value)).filter((value) => value !== '');
  if (offered.length > 0 && typeof ui.select === 'function') {
    const picked = await ui.select(title, [...offered, OTHER]);
    if (picked === undefined) return undefined;
    if (picked !== OTHER) return picked;
  }
  return ui.input(title, '');
}

/**
 * The argument being typed at the end of `typed`: `name=partial` by name, else the next declared
 * argument by position (a prompt with one argument: the whole text). `before` is the text kept in
 * front of the value; `context` the arguments given before it.
 */
export function argumentAt(
  typed: string,
  names: string[],
): { name: string; value: string; before: string; context: Record<string, string> } | undefined {
  if (names.length === 0) return undefined;
  if (names.length === 1 && !typed.startsWith(`${names[0]}=`)) {
    return /\s/.test(typed) ? undefined : { name: names[0]!, value: typed, before: '', context: {} };
  }
  const last = /(\S*)$/.exec(typed)?.[1] ?? '';
  const head = typed.slice(0, typed.length - last.length);
  const context = parsePromptArguments(head, names);
  const named = /^([A-Za-z_][\w-]*)=(.*)$/.exec(last);
  if (named && names.includes(named[1]!) && !/^["']/.test(named[2]!)) {
    return { name: named[1]!, value: named[2]!, before: `${head}${named[1]}=`, context };
  }
  if (named || last.startsWith('"') || last.startsWith("'")) return undefined;
  const next = names.find((n) => context[n] === undefined);
  return next === undefined ? undefined : { name: next, value: last, before: head, context };
}

/** `a=1 b="two words"` by name; bare words fill the declared arguments in order; one argument takes all. */
export function parsePromptArguments(text: string, names: string[]): Record<string, string> {
  const trimmed = text.trim();
  const out: Record<string, string> = {};
  if (!trimmed) return out;
  const tokens = [...trimmed.matchAll(/(?:([A-Za-z_][\w-]*)=)?(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+))/g)];
  const named = tokens.filter((t) => t[1] !== undefined && names.includes(t[1]));
  if (names.length === 1 && named.length === 0) {
    out[names[0]!] = trimmed;
    return out;
  }
  const positional = [...names];
  for (const t of tokens) {
    const value = (t[2] ?? t[3] ?? t[4] ?? '').replace(/\\"/g, '"');
    if (t[1] !== undefined && names.includes(t[1])) {
      out[t[1]] = value;
      positional.splice(positional.indexOf(t[1]), 1);
    } else {
      const next = positional.shift();
      if (next !== undefined) out[next] = t[1] !== undefined ? `${t[1]}=${value}` : value;
    }
  }
  return out;
}
