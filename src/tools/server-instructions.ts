// A server's initialize `instructions` reach the model once per session, at a stable place: the end of
// the ToolSearch result that first loads that server's tools (never the system prompt or ToolSearch's
// description, which must stay byte-identical for prompt caching). Long instructions are cut.

export const INSTRUCTIONS_CAP = 2000;

export function instructionsNote(server: string, instructions: string): string | undefined {
  const text = instructions.trim();
  if (!text) return undefined;
  const body =
    text.length <= INSTRUCTIONS_CAP
      ? text
      : `${text.slice(0, INSTRUCTIONS_CAP).trimEnd()}… (cut at ${INSTRUCTIONS_CAP} characters)`;
  return `Instructions from MCP server "${server}":\n${body}`;
}
