// The words that depend on where a message is read (inside Pi or in the `pi-mcp-actors` CLI): their
// shape. The words themselves are src/tools/surface-words.ts.

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
  /** A server's question (elicitation) declined because nobody can answer it here: what the reader does. */
  questionDeclined(question: string, why: string): string;
}
