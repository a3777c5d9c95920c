// `approveTools`: which calls ask the user first, and the session's grants. The host asks (Pi's
// dialog); this module decides when to ask and what the model reads when the call does not run.
// Grants last for the session (the runtime keeps them in the session machine's context), keyed by the
// server's whole resolved definition, so a changed server entry asks again.

import { createHash } from 'node:crypto';
import type { CatalogEntry } from '../catalog/catalog.ts';
import { matchesToolPattern } from '../catalog/name-patterns.ts';
import type { ServerDefinition } from '../config/types.ts';
import type { SurfaceWords } from '../ports/surface-words.ts';
import type { SecretValues } from '../redact/index.ts';
import { wordsFor } from './surface-words.ts';

/** The user's answer; `no-ui` when nobody can be asked (print or JSON mode, no TTY, no host dialog). */
export type ApprovalAnswer = 'once' | 'session' | 'server' | 'deny' | 'no-ui';

export interface ApprovalRequest {
  server: string;
  /** The tool's name at its server (a resource tool: the registered name). */
  tool: string;
  /** The name the model called. */
  name: string;
  kind: CatalogEntry['kind'];
  /** The call's arguments as one line (secrets redacted, cut), for the user to judge. */
  preview: string;
}

export type AskApproval = (request: ApprovalRequest, signal?: AbortSignal) => Promise<ApprovalAnswer>;

export function needsApproval(definition: ServerDefinition, entry: CatalogEntry): boolean {
  const rule = definition.approveTools;
  if (rule === true) return true;
  if (!Array.isArray(rule) || rule.length === 0) return false;
  return matchesToolPattern(entry, rule);
}

/** Where a session's grants are kept: `server@<definition hash>` for a server, `…/tool` for one tool. */
export interface ApprovalGrants {
  has(grant: string): boolean;
  add(grant: string): void;
}

export function createToolApprovals(
  ask: AskApproval | undefined,
  secrets: SecretValues,
  words: SurfaceWords = wordsFor('pi'),
  grants: ApprovalGrants = new Set<string>(),
) {
  const identity = (definition: ServerDefinition) =>
    `${definition.name}@${createHash('sha256').update(JSON.stringify(definition)).digest('hex').slice(0, 16)}`;
  return {
    /** undefined when the call may run; else the tool error text for the model. */
    async check(
      definition: ServerDefinition,
      entry: CatalogEntry,
      args: Record<string, unknown>,
      signal?: AbortSignal,
    ): Promise<string | undefined> {
      if (!needsApproval(definition, entry)) return undefined;
      const server = identity(definition);
      const tool = `${server}/${entry.tool}`;
      if (grants.has(server) || grants.has(tool)) return undefined;
      const request = {
        server: entry.server,
        tool: entry.tool,
        name: entry.name,
        kind: entry.kind,
        preview: argumentsPreview(args, secrets),
      };
      const answer = ask ? await ask(request, signal).catch((): ApprovalAnswer => 'deny') : 'no-ui';
      if (answer === 'session') grants.add(tool);
      if (answer === 'server') grants.add(server);
      if (answer === 'once' || answer === 'session' || answer === 'server') return undefined;
      return refusalText(definition, entry, answer, words, signal);
    },
  };
}

export type ToolApprovals = ReturnType<typeof createToolApprovals>;

const PREVIEW_CHARS = 300;

function argumentsPreview(args: Record<string, unknown>, secrets: SecretValues): string {
  let text: string;
  try {
    text = JSON.stringify(secrets.redactDeep(args)) ?? '{}';
  } catch {
    text = '(arguments that cannot be shown)';
  }
  return text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS - 1)}…` : text;
}

function refusalText(
  definition: ServerDefinition,
  entry: CatalogEntry,
  answer: 'deny' | 'no-ui',
  words: SurfaceWords,
  signal?: AbortSignal,
): string {
  if (signal?.aborted) return `Call to ${entry.name} was cancelled while waiting for the user's approval.`;
  if (answer === 'deny') {
    return `The user denied the call to ${entry.name} (MCP server "${entry.server}"); it did not run. Do not call it again unless the user asks; tell the user what you wanted it to do.`;
  }
  const where = `"approveTools" of server "${entry.server}" at ${definition.source.keyPath} in ${definition.source.file}, or "settings.approveTools"`;
  return `${entry.name} needs the user's approval before it runs (${where}), and nobody can be asked here (${words.noOneToAsk}), so it did not run. To allow it without asking, take it out of "approveTools" (or set "approveTools": false on the server), or ${words.beAsked}.`;
}
