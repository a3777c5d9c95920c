// The slash command name of an MCP prompt, on its own so Pi's start-up path does not load the prompt
// runner (and with it the server machine and XState).

import { plainLine } from '../terminal-text.ts';

/** The slash command of a server's prompt: /mcp__<server>__<prompt> (no escapes, no spaces: Pi lists it raw). */
export function promptCommandName(server: string, prompt: string): string {
  return `mcp__${plainLine(server)}__${plainLine(prompt)}`.replace(/\s+/g, '_');
}
