// What leaves the session runtime for a person or a model, passed through the one redaction
// (src/redact.ts): tool results and progress, and everything the host is asked to show or register.

import { plainText } from '../catalog/terminal-text.ts';
import { redact, redactDeep } from '../redact.ts';
import type { ProgressUpdate, ToolResult } from '../tools/executor.ts';
import type { HostPort } from './host-port.ts';

export function redactResult(result: ToolResult): ToolResult {
  return {
    ...result,
    content: result.content.map((c) => (c.type === 'text' ? { ...c, text: redact(c.text) } : c)),
    details: redactDeep(result.details),
  };
}

export function redactProgress(onUpdate: ProgressUpdate | undefined): ProgressUpdate | undefined {
  return onUpdate ? (partial) => onUpdate(redactResult(partial)) : undefined;
}

/** The host with every text it is given redacted: tool descriptions and schemas, status, notifications. */
export function redactingHost(host: HostPort): HostPort {
  return {
    registerTool: (entry) =>
      host.registerTool({
        ...entry,
        // `tool` only labels the registration here (calls go by `name`).
        tool: plainText(entry.tool, 200),
        description: redact(entry.description),
        inputSchema: redactDeep(entry.inputSchema),
      }),
    withdrawTool: (entry) => host.withdrawTool?.(entry),
    ...(host.registersEveryTool ? { registersEveryTool: () => host.registersEveryTool?.() ?? false } : {}),
    ...(host.registerPrompt
      ? {
          registerPrompt: (server, prompt) =>
            host.registerPrompt?.(server, redactDeep(prompt) as typeof prompt),
        }
      : {}),
    registerToolSearch: (description) => host.registerToolSearch(plainText(redact(description))),
    setActiveMcpTools: (names) => host.setActiveMcpTools(names),
    setStatus: (text) => host.setStatus(text === undefined ? undefined : plainText(redact(text))),
    notify: (message, level) => host.notify(plainText(redact(message)), level),
  };
}
