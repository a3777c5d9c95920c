// What leaves the session runtime for a person or a model, passed through the one redaction
// (src/redact/), with the runtime's own known secrets: tool results and progress, and everything the host is asked to show or register.
// A server's data for the model (results, descriptions, schemas, prompts) loses only the secrets we
// know; our own diagnostic text (status, notifications) is also masked by shape.

import type { SecretValues } from '../redact/index.ts';
import { plainText } from '../terminal-text.ts';
import type { ProgressUpdate, ToolResult } from '../tools/executor.ts';
import type { HostPort } from './host-port.ts';

export function redactResult(result: ToolResult, secrets: SecretValues): ToolResult {
  return {
    ...result,
    content: result.content.map((c) => (c.type === 'text' ? { ...c, text: secrets.redactKnown(c.text) } : c)),
    details: secrets.redactKnownDeep(result.details),
  };
}

export function redactProgress(
  onUpdate: ProgressUpdate | undefined,
  secrets: SecretValues,
): ProgressUpdate | undefined {
  return onUpdate ? (partial) => onUpdate(redactResult(partial, secrets)) : undefined;
}

/** The host with every text it is given redacted: tool descriptions and schemas, status, notifications. */
export function redactingHost(host: HostPort, secrets: SecretValues): HostPort {
  return {
    registerTool: (entry) =>
      host.registerTool({
        ...entry,
        // `tool` only labels the registration here (calls go by `name`).
        tool: plainText(entry.tool, 200),
        description: secrets.redactKnown(entry.description),
        inputSchema: secrets.redactKnownDeep(entry.inputSchema),
      }),
    withdrawTool: (entry) => host.withdrawTool?.(entry),
    ...(host.registersEveryTool ? { registersEveryTool: () => host.registersEveryTool?.() ?? false } : {}),
    ...(host.registerPrompt
      ? {
          registerPrompt: (server, prompt) =>
            host.registerPrompt?.(server, secrets.redactKnownDeep(prompt) as typeof prompt),
        }
      : {}),
    registerToolSearch: (description) => host.registerToolSearch(plainText(secrets.redactKnown(description))),
    setActiveMcpTools: (names) => host.setActiveMcpTools(names),
    setStatus: (text) => host.setStatus(text === undefined ? undefined : plainText(secrets.redact(text))),
    notify: (message, level) => host.notify(plainText(secrets.redact(message)), level),
  };
}
