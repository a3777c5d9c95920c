// The slash command name of an MCP prompt, on its own so Pi's start-up path does not load the prompt
// runner (and with it the server machine and XState).

/** The slash command of a server's prompt: /mcp__<server>__<prompt>. */
export function promptCommandName(server: string, prompt: string): string {
  return `mcp__${server}__${prompt.replace(/\s+/g, '_')}`;
}
