// The effects the session needs from its host (Pi, or the CLI), in the host's own vocabulary-free
// terms. src/adapters/pi/ implements it for Pi; the CLI and tests implement it in a few lines.

import type { CatalogEntry } from '../catalog/catalog.ts';
import type { PromptDescriptor } from '../ports/mcp.ts';
import type { RegisteredTools } from './registered-tools.ts';

export type NotifyLevel = 'info' | 'warning' | 'error';

export interface HostPort {
  /**
   * What this host holds of ours. A host that registers tools itself before the runtime exists (Pi's
   * start path) shares its registry here, so each tool goes through one registry with one fingerprint;
   * a host without one leaves it out and the runtime keeps its own.
   */
  registry?: RegisteredTools;
  /** Registers an MCP tool, or registers it again under its name when its description or schema changed;
   * inactive unless activated. */
  registerTool(entry: CatalogEntry): void;
  /**
   * Whether every tool must be registered up front, because the host's own scripts may call any of them
   * (Pi's codemode). Otherwise a large catalog registers only direct tools and those ToolSearch loaded.
   */
  registersEveryTool?(): boolean;
  /** Withdraws a tool its server no longer offers (Pi hides it); hosts without a tool registry omit it. */
  withdrawTool?(entry: CatalogEntry): void;
  /** Offers a server's prompt as a command (again when it changed); hosts without commands omit it. */
  registerPrompt?(server: string, prompt: PromptDescriptor): void;
  /** Registers ToolSearch with this session's description. */
  registerToolSearch(description: string): void;
  /** Makes exactly the host's own tools plus these MCP tool names active. */
  setActiveMcpTools(names: string[]): void;
  setStatus(text: string | undefined): void;
  notify(message: string, level: NotifyLevel): void;
}

/** A host that shows nothing and registers nowhere (the CLI, benchmarks, tests); `overrides` replace parts. */
export function silentHost(overrides: Partial<HostPort> = {}): HostPort {
  return {
    registerTool() {},
    registerToolSearch() {},
    setActiveMcpTools() {},
    setStatus() {},
    notify() {},
    ...overrides,
  };
}
