// sampling/createMessage on Pi's model: the model the request prefers when Pi has it, else Pi's
// current one. The user approves each server once per session (or once per request); without UI the
// request is refused with the reason. settings.samplingAutoApprove skips the question, UI or not.
// maxTokens and temperature are passed on; text and images go both ways (audio is described, not sent).

import {
  HostRefusal,
  type SamplingAnswer,
  type SamplingContent,
  type SamplingRequest,
} from '../../ports/mcp.ts';
import type { SecretValues } from '../../redact/index.ts';
import type { PiContext, PiDialogs } from './pi-types.ts';

/** The slice of Pi's model objects and registry we use (pi-ai Model, ctx.modelRegistry). */
export interface PiModel {
  id: string;
  provider: string;
  name?: string;
  input?: string[];
}

type PiBlock = { type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string };

export interface PiModelRegistry {
  complete(
    model: PiModel,
    context: { systemPrompt?: string; messages: unknown[] },
    options?: { maxTokens?: number; temperature?: number; signal?: AbortSignal },
  ): Promise<{
    content: Array<{ type: string; text?: string; data?: string; mimeType?: string }>;
    stopReason?: string;
    errorMessage?: string;
    model?: string;
  }>;
  getAvailable?(): PiModel[];
}

const ONCE = 'Allow once';
const SESSION = 'Allow for this session';
const DENY = 'Deny';

export function createSampler(currentContext: () => PiContext | undefined, secrets: SecretValues) {
  const approved = new Set<string>();
  return {
    /** A new Pi session asks again. */
    forgetApprovals: () => approved.clear(),
    /** `autoApprove` (settings.samplingAutoApprove): no question, also without UI. */
    async sample(
      server: string,
      request: SamplingRequest,
      signal: AbortSignal,
      autoApprove = false,
    ): Promise<SamplingAnswer> {
      const ctx = currentContext();
      const registry = ctx?.modelRegistry as PiModelRegistry | undefined;
      const model = pickModel(ctx, request.modelHints);
      if (!registry || !model) throw new HostRefusal('Declined: Pi has no model selected to sample with.');
      if (!autoApprove && !approved.has(server)) {
        const ui = ctx?.hasUI && typeof ctx.ui.select === 'function' ? (ctx.ui as PiDialogs) : undefined;
        if (!ui) {
          throw new HostRefusal(
            `Declined: Pi runs without an interactive UI (${ctx?.mode ?? 'non-interactive'} mode), so the user cannot approve a sampling request (settings.samplingAutoApprove: true allows it without asking).`,
          );
        }
        const last = request.messages.at(-1);
        // The server's text, as sent but for the secrets we know (src/redact/).
        const preview = last ? secrets.redactKnown(oneBlockText(last.content)).slice(0, 200) : '';
        const choice = await ui.select(
          `MCP server "${server}" wants to use your model ${model.provider}/${model.id} (up to ${request.maxTokens} tokens): ${preview}`,
          [ONCE, SESSION, DENY],
          { signal },
        );
        if (choice === undefined || choice === DENY)
          throw new HostRefusal('Declined: the user did not allow this sampling request.');
        if (choice === SESSION) approved.add(server);
      }
      const messages = request.messages.map((m) => toPiMessage(m.role, m.content, model));
      const reply = await registry.complete(
        model,
        { ...(request.systemPrompt ? { systemPrompt: request.systemPrompt } : {}), messages },
        {
          maxTokens: request.maxTokens,
          ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
          signal,
        },
      );
      if (reply.stopReason === 'error' || reply.stopReason === 'aborted') {
        throw new HostRefusal(`Sampling failed: ${reply.errorMessage ?? reply.stopReason}`);
      }
      return {
        model: `${model.provider}/${model.id}`,
        role: 'assistant',
        content: firstContent(reply.content),
        stopReason: reply.stopReason === 'length' ? 'maxTokens' : 'endTurn',
      };
    },
  };
}

function pickModel(ctx: PiContext | undefined, hints: string[]): PiModel | undefined {
  const current = ctx?.model as PiModel | undefined;
  const available = (ctx?.modelRegistry as PiModelRegistry | undefined)?.getAvailable?.() ?? [];
  for (const hint of hints) {
    const match = available.find((m) => m.id.includes(hint) || `${m.provider}/${m.id}`.includes(hint));
    if (match) return match;
  }
  return current;
}

function toPiMessage(
  role: 'user' | 'assistant',
  content: SamplingContent | SamplingContent[],
  model: PiModel,
) {
  const blocks: PiBlock[] = (Array.isArray(content) ? content : [content]).map((c) => {
    if (c.type === 'image' && (model.input ?? ['text']).includes('image'))
      return { type: 'image', data: c.data, mimeType: c.mimeType };
    if (c.type === 'text') return { type: 'text', text: c.text };
    return { type: 'text', text: `[${c.type} (${c.mimeType}) not shown: this model does not take it]` };
  });
  const timestamp = Date.now();
  if (role === 'user') return { role: 'user', content: blocks, timestamp };
  // An earlier assistant turn of the server's conversation, as Pi's message shape wants it.
  return {
    role: 'assistant',
    content: blocks.filter((b) => b.type === 'text'),
    api: 'openai-completions',
    provider: model.provider,
    model: model.id,
    usage: {
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 0,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    stopReason: 'stop',
    timestamp,
  };
}

function firstContent(
  blocks: Array<{ type: string; text?: string; data?: string; mimeType?: string }>,
): SamplingContent {
  const image = blocks.find((b) => b.type === 'image' && b.data && b.mimeType);
  const text = blocks
    .filter((b) => b.type === 'text')
    .map((b) => b.text ?? '')
    .join('');
  if (!text && image) return { type: 'image', data: image.data!, mimeType: image.mimeType! };
  return { type: 'text', text };
}

function oneBlockText(content: SamplingContent | SamplingContent[]): string {
  const list = Array.isArray(content) ? content : [content];
  return list.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join(' ');
}
