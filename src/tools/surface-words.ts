// The words that depend on where a message is read: inside Pi (slash commands, ToolSearch) or in the
// `pi-mcp-actors` CLI (its commands). Every message that names a way out takes it from here.

import { closest } from '../config/suggest.ts';

export type Surface = 'pi' | 'cli';

export interface SurfaceWords {
  surface: Surface;
  /** The end of a sentence saying how a failed server is tried again now. */
  retryNow(server: string): string;
  /** The command that signs in to a server. */
  signIn(server: string): string;
  /** A whole sentence: where the configured servers are listed. */
  seeServers: string;
  /** A tool name no server provides: the closest known name, and how to find one. */
  unknownTool(name: string, known: readonly string[]): string;
  /** Why nobody can be asked here (approval, forms), in parentheses. */
  noOneToAsk: string;
  /** How to get asked after all. */
  beAsked: string;
}

const PI: SurfaceWords = {
  surface: 'pi',
  retryNow: (server) => `/mcp reconnect ${server} tries now`,
  signIn: (server) => `/mcp-auth ${server}`,
  seeServers: 'Run /mcp to see the servers.',
  unknownTool: (name, known) =>
    `Tool ${name} is no longer provided by any MCP server.${suggestion(name, known)} Use ToolSearch to find a replacement.`,
  noOneToAsk: 'no interactive UI: print or JSON mode',
  beAsked: 'run Pi interactively',
};

const CLI: SurfaceWords = {
  surface: 'cli',
  retryNow: () => 'running the command again tries now',
  signIn: (server) => `pi-mcp-actors login ${server}`,
  seeServers: 'Run `pi-mcp-actors status` to see the servers.',
  unknownTool: (name, known) =>
    `No MCP server provides a tool named ${name}.${suggestion(name, known)} Run \`pi-mcp-actors tools\` to list the tools or \`pi-mcp-actors search <words>\` to find one.`,
  noOneToAsk: 'stdin is not a terminal',
  beAsked: 'run the command in a terminal',
};

export function wordsFor(surface: Surface = 'pi'): SurfaceWords {
  return surface === 'cli' ? CLI : PI;
}

function suggestion(name: string, known: readonly string[]): string {
  const match = closest(name, known);
  return match === undefined ? '' : ` Did you mean ${match}?`;
}
