// The words that depend on where a message is read: inside Pi (slash commands, ToolSearch) or in the
// `pi-mcp-actors` CLI (its commands). Every message that names a way out takes it from here.

import { closest } from '../config/suggest.ts';
import type { Surface, SurfaceWords } from '../ports/surface-words.ts';

const PI: SurfaceWords = {
  surface: 'pi',
  retryNow: (server) => `/mcp reconnect ${server} tries now`,
  signIn: (server) => `/mcp-auth ${server}`,
  seeServers: 'Run /mcp to see the servers.',
  unknownTool: (name, known) =>
    `Tool ${name} is no longer provided by any MCP server.${suggestion(name, known)} Use ToolSearch to find a replacement.`,
  noOneToAsk: 'no interactive UI: print or JSON mode',
  beAsked: 'run Pi interactively',
  questionDeclined: (question, why) =>
    `Declined: Pi runs without an interactive UI (${why}), so the user cannot be asked "${question}". Ask the user in the conversation instead.`,
};

const CLI: SurfaceWords = {
  surface: 'cli',
  retryNow: () => 'running the command again tries now',
  signIn: (server) => `pi-mcp-actors login ${server}`,
  seeServers: 'Run `pi-mcp-actors status` to see the servers.',
  unknownTool: (name, known) => {
    const match = closestToolName(name, known);
    return match === undefined
      ? `No MCP server provides a tool named ${name}. Run \`pi-mcp-actors tools\` to list the tools or \`pi-mcp-actors search <words>\` to find one.`
      : `No MCP server provides a tool named ${name}. Did you mean ${match}? Run \`pi-mcp-actors call ${match}\` (arguments as JSON after it); \`pi-mcp-actors search <words>\` finds others.`;
  },
  noOneToAsk: 'stdin is not a terminal',
  beAsked: 'run the command in a terminal',
  questionDeclined: (question, why) =>
    `Declined: the server asked "${question}", and nobody can answer it here (${why}). Run the command in a terminal to answer it.`,
};

export function wordsFor(surface: Surface = 'pi'): SurfaceWords {
  return surface === 'cli' ? CLI : PI;
}

function suggestion(name: string, known: readonly string[]): string {
  const match = closestToolName(name, known);
  return match === undefined ? '' : ` Did you mean ${match}?`;
}

const SEPARATOR = '__';

/**
 * The known name closest to `name`: a typo of a whole name, or the tool's own name typed without its
 * server prefix (`get-sum` for `everything__get-sum`), exactly or with a typo.
 */
export function closestToolName(name: string, known: readonly string[]): string | undefined {
  const whole = closest(name, known);
  if (whole !== undefined) return whole;
  if (name.includes(SEPARATOR)) return undefined;
  const own = known.map((k) =>
    k.includes(SEPARATOR) ? k.slice(k.indexOf(SEPARATOR) + SEPARATOR.length) : k,
  );
  const exact = own.indexOf(name);
  if (exact >= 0) return known[exact];
  const near = closest(name, own);
  return near === undefined ? undefined : known[own.indexOf(near)];
}
