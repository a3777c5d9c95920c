// The slice of Pi's extension API this extension uses, declared as our own narrow interfaces that Pi's
// real ExtensionAPI satisfies structurally. Only src/adapters/pi/ imports them; keeping them out of
// bridge.ts lets the lazily loaded halves (dialogs, sampling, commands) name Pi without importing the
// bridge back.

import type { ToolResult } from '../../tools/executor.ts';
import type { PiCustomUi } from './panel.ts';
import type { PiToolModel } from './tool-model.ts';

export interface PiUi extends Partial<PiCustomUi> {
  notify(message: string, type?: 'info' | 'warning' | 'error'): void;
  /** Stacks an autocomplete provider; Pi rebuilds its slash-command list from the registered commands. */
  addAutocompleteProvider?(factory: (current: unknown) => unknown): void;
  setStatus(key: string, text: string | undefined): void;
  input?(
    title: string,
    placeholder?: string,
    options?: { signal?: AbortSignal },
  ): Promise<string | undefined>;
}

/** Pi's dialogs (ctx.ui): undefined when the user dismissed them (Escape) or the signal aborted. */
export interface PiDialogs {
  select(title: string, options: string[], opts?: { signal?: AbortSignal }): Promise<string | undefined>;
  confirm(title: string, message: string, opts?: { signal?: AbortSignal }): Promise<boolean>;
  input(title: string, placeholder?: string, opts?: { signal?: AbortSignal }): Promise<string | undefined>;
}

export interface PiContext {
  cwd: string;
  hasUI: boolean;
  mode?: string;
  ui: PiUi & Partial<PiDialogs>;
  isProjectTrusted?(): boolean;
  isIdle?(): boolean;
  /** Pi's current model and its registry (sampling); shapes in ./sampling.ts. */
  model?: unknown;
  modelRegistry?: unknown;
}

export interface PiToolDefinition extends Partial<PiToolModel> {
  name: string;
  label: string;
  description: string;
  parameters: unknown;
  defaultActive?: boolean;
  /** Which tools a call may reach (Pi 1.5): `"all"` or words naming tools / namespaces. */
  reachesTools?: (input: unknown) => 'all' | string[];
  execute(
    toolCallId: string,
    params: Record<string, unknown>,
    signal: AbortSignal | undefined,
    onUpdate: ((partial: ToolResult) => void) | undefined,
    ctx: unknown,
  ): Promise<ToolResult>;
}

export interface PiCommandDefinition {
  description?: string;
  getArgumentCompletions?(
    prefix: string,
  ): Array<{ value: string; label: string }> | null | Promise<Array<{ value: string; label: string }> | null>;
  handler(args: string, ctx: PiContext): Promise<void>;
}

/** The part of Pi's ExtensionAPI this extension uses. */
export interface PiHost {
  on(event: string, handler: (event: any, ctx: PiContext) => unknown): unknown;
  registerTool(tool: PiToolDefinition): void;
  registerCommand(name: string, options: PiCommandDefinition): void;
  registerFlag(
    name: string,
    options: { type: 'string' | 'boolean'; description?: string; default?: string | boolean },
  ): void;
  getFlag(name: string): boolean | string | undefined;
  getActiveTools(): string[];
  setActiveTools(names: string[]): void;
  getMcpServers?(): unknown;
  sendUserMessage?(
    content:
      | string
      | Array<{ type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string }>,
    options?: { deliverAs?: 'steer' | 'followUp' },
  ): void;
}

export function isPiContext(value: unknown): value is PiContext {
  return typeof value === 'object' && value !== null && 'ui' in value && 'hasUI' in value;
}
