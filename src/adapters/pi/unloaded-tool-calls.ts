// A model that calls a known MCP tool before ToolSearch loaded it gets Pi's bare `Tool … not found`:
// Pi refuses a tool that is not active before any extension could run it (and other extensions'
// `tool_call` gates must see every call, so we do not run it behind Pi's back). When the name is one
// of our registered tools, it is made active for the next request and Pi's answer is replaced
// (message_end may replace a finished message) by one saying that calling it again runs it. A tool
// whose server a config edit removed is answered that it is gone, and why, instead.

import type { Runtime } from '../../actors/session-actor.ts';
import type { PiHost } from './pi-types.ts';

interface ToolResultMessage {
  role: string;
  toolName?: string;
  isError?: boolean;
  content?: Array<{ type: string; text?: string }>;
}

export function loadToolsCalledUnloaded(
  pi: PiHost,
  isMcpTool: (name: string) => boolean,
  ready: () => Promise<Runtime>,
  removedNote: (name: string) => string | undefined,
): void {
  pi.on('message_end', async (event: { message?: ToolResultMessage }) => {
    try {
      const message = event.message;
      const name = message?.toolName;
      if (message?.role !== 'toolResult' || !message.isError || !name) return undefined;
      const removed = removedNote(name);
      if (!removed && !isMcpTool(name)) return undefined;
      // Loaded only when Pi refused a call: nothing of this runs before the first model request.
      const { isPiToolNotFound, notLoadedMessage } = await import('../../session/unknown-tool.ts');
      const text = (message.content ?? []).map((c) => c.text ?? '').join('');
      if (!isPiToolNotFound(text, name)) return undefined;
      if (removed) return { message: { ...message, content: [{ type: 'text', text: removed }] } };
      // Active for the next request now; the session records it as loaded once it runs (it may be
      // starting: waiting for it here would hold Pi's turn).
      pi.setActiveTools([...new Set([...pi.getActiveTools(), name])]);
      void ready()
        .then((rt) => rt.actor.send({ type: 'ACTIVATE', names: [name] }))
        .catch(() => undefined);
      return { message: { ...message, content: [{ type: 'text', text: notLoadedMessage(name) }] } };
    } catch {
      // Nothing throws into Pi: its own answer stands.
      return undefined;
    }
  });
}
