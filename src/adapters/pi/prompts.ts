// A server's MCP prompts as Pi slash commands: /mcp__<server>__<prompt> [arguments]. Arguments are
// `name=value` pairs (quotes for spaces) or, in declared order, plain words; a prompt with one
// argument takes the whole text. Missing required arguments are asked for with Pi's input dialog
// (or named in an error without UI). The prompt's messages go to the model as a user message.

import { promptCommandName } from '../../session/prompt-command-name.ts';
import type { PromptOutcome } from '../../session/prompts.ts';
import type { PiContent } from '../../tools/content.ts';
import type { PromptDescriptor } from '../mcp/connection-port.ts';
import type { PiCommandDefinition, PiContext, PiDialogs } from './pi-types.ts';

export interface PromptCommandDeps {
  prompt(server: string, name: string, args: Record<string, string>): Promise<PromptOutcome>;
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
  return {
    description: `MCP ${server}: ${about}${usage ? ` — ${usage}` : ''}`,
    handler: async (text, ctx) => {
      const args = parsePromptArguments(
        text,
        declared.map((a) => a.name),
      );
      for (const arg of declared) {
        if (!arg.required || args[arg.name] !== undefined) continue;
        const ui = ctx.hasUI && typeof ctx.ui.input === 'function' ? (ctx.ui as PiDialogs) : undefined;
        const answer = await ui?.input(`${arg.name}${arg.description ? ` — ${arg.description}` : ''}`, '');
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
