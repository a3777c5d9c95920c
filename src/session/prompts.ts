// MCP prompts as host commands: which prompts the host has been given (registered again when one
// changes), and running one: connect the server, prompts/get, and the messages as model content.

import type { KnownCatalog } from '../machines/session.machine.ts';
import type { PromptDescriptor } from '../ports/mcp.ts';
import { mcpResultToPi, type PiContent } from '../tools/content.ts';
import { ensureConnected, type ServerActorRef } from './ensure-connected.ts';

export type PromptOutcome = { ok: true; content: PiContent[] } | { ok: false; error: string };

export class RegisteredPrompts {
  private readonly keys = new Map<string, string>();

  /** Prompts that are new or changed since the last call. */
  changed(catalogs: Record<string, KnownCatalog>): Array<{ server: string; prompt: PromptDescriptor }> {
    const out: Array<{ server: string; prompt: PromptDescriptor }> = [];
    for (const [server, known] of Object.entries(catalogs)) {
      for (const prompt of known.prompts ?? []) {
        const id = `${server}\u0000${prompt.name}`;
        const key = JSON.stringify(prompt);
        if (this.keys.get(id) === key) continue;
        this.keys.set(id, key);
        out.push({ server, prompt });
      }
    }
    return out;
  }
}

export async function runPrompt(
  ref: ServerActorRef | undefined,
  server: string,
  name: string,
  args: Record<string, string>,
  options: { tempDir: string; signal?: AbortSignal },
): Promise<PromptOutcome> {
  if (!ref) return { ok: false, error: `MCP server "${server}" is disabled or not configured.` };
  const ready = await ensureConnected(ref, options.signal ? { signal: options.signal } : {});
  if (!ready.ok) return { ok: false, error: ready.error.message };
  const offered = ready.connection.catalog.prompts;
  const current = ref.getSnapshot().context.catalog?.prompts ?? offered;
  if (current && !current.some((p) => p.name === name)) {
    return { ok: false, error: `MCP server "${server}" no longer offers the prompt "${name}".` };
  }
  try {
    const result = await ready.connection.getPrompt(
      name,
      args,
      options.signal ? { signal: options.signal } : {},
    );
    // Several messages (a conversation the prompt seeds) keep their roles visible to the model.
    const labelled = result.messages.length > 1 || result.messages.some((m) => m.role !== 'user');
    const content: PiContent[] = [];
    for (const message of result.messages) {
      const converted = mcpResultToPi({ content: [message.content] }, { tempDir: options.tempDir }).content;
      if (labelled) content.push({ type: 'text', text: `[${message.role}]` });
      content.push(...converted);
    }
    return { ok: true, content: mergeText(content) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

/** How many suggestions are kept (a server may send up to 100 and say there are more). */
const MAX_COMPLETIONS = 20;

/**
 * The server's suggestions (MCP `completion/complete`) for a prompt's argument, as typed so far.
 * Only a server that is connected is asked unless `connect`: typing must not start servers. None
 * when the server offers no completions or the request fails: suggestions are a help, not a step.
 */
export async function completePromptArgument(
  ref: ServerActorRef | undefined,
  prompt: string,
  argument: { name: string; value: string },
  context: Record<string, string>,
  options: { connect: boolean; signal?: AbortSignal },
): Promise<string[]> {
  if (!ref || (!options.connect && !ref.getSnapshot().hasTag('usable'))) return [];
  const ready = await ensureConnected(ref, options.signal ? { signal: options.signal } : {});
  if (!ready.ok || !ready.connection.completePrompt) return [];
  try {
    const values = await ready.connection.completePrompt(prompt, argument, context, options.signal);
    return values.filter((v) => typeof v === 'string' && v !== '').slice(0, MAX_COMPLETIONS);
  } catch {
    return [];
  }
}

/** Adjacent text blocks joined, so the user message reads as one text with its images. */
function mergeText(content: PiContent[]): PiContent[] {
  const out: PiContent[] = [];
  for (const block of content) {
    const last = out.at(-1);
    if (block.type === 'text' && last?.type === 'text') last.text = `${last.text}\n${block.text}`;
    else out.push(block.type === 'text' ? { ...block } : block);
  }
  return out;
}
