// Runs one MCP tool call for the model: lazy connect through the server actor, the call bracketed by
// CALL_STARTED / CALL_FINISHED, then the result stages (content, TOON, output guard). Every failure
// comes back as a tool result that says what happened and what to do; nothing is thrown.

import { unrefClock } from '../actors/unref-clock.ts';
import type { Surface } from '../auth/sign-in-advice.ts';
import type { CatalogEntry } from '../catalog/catalog.ts';
import { expandUriTemplate } from '../catalog/uri-template.ts';
import type { Settings } from '../config/types.ts';
import { formatDuration } from '../duration.ts';
import { CallError } from '../ports/call-error.ts';
import type { Clock } from '../ports/clock.ts';
import type { Connection } from '../ports/connection.ts';
import type { CallToolResult } from '../ports/mcp.ts';
import type { SecretValues } from '../redact/index.ts';
import { ensureConnected, type ServerActorRef } from '../session/ensure-connected.ts';
import { mcpResultToPi, type PiContent, resourceResultToPi } from './content.ts';
import { guardOutput } from './output-guard.ts';
import { isArgumentError, summarizeParameters } from './param-summary.ts';
import { throttleProgress } from './progress-throttle.ts';
import type { CallStats } from './stats.ts';
import { wordsFor } from './surface-words.ts';
import { missingTemplateArguments } from './template-arguments.ts';
import { maybeToon } from './toon.ts';

export interface ToolResult {
  content: PiContent[];
  details: Record<string, unknown>;
  isError?: boolean;
}

export type ProgressUpdate = (partial: ToolResult) => void;

export interface ExecutorDeps {
  /** The runtime's known secrets: our error texts are redacted with them. */
  secrets: SecretValues;
  entry(name: string): CatalogEntry | undefined;
  server(name: string): ServerActorRef | undefined;
  settings: Settings;
  tempDir: string;
  /** Every tool name callable now: an unknown name gets the closest one. */
  names?(): readonly string[];
  stats?: CallStats;
  /** Where the error texts are read: Pi (default) or the CLI. */
  surface?: Surface;
  /** Why a name is in no catalog when a server that waits for a sign-in may be the one to offer it. */
  unknownTool?(name: string): { server: string; message: string } | undefined;
  /** Why a name is in no catalog when a config edit removed its server this session. */
  removedTool?(name: string): { server: string; message: string } | undefined;
  /** Paces progress updates (default: real timers, unref()'d). */
  clock?: Clock;
  /** The `approveTools` gate: undefined lets the call run, a text refuses it (src/tools/approval.ts). */
  approve?(
    entry: CatalogEntry,
    args: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<string | undefined>;
}

/** A failure in our words: our diagnostic text, so secret-shaped parts are masked too (src/redact/). */
export function errorResult(
  text: string,
  secrets: SecretValues,
  details: Record<string, unknown> = {},
): ToolResult {
  return { content: [{ type: 'text', text: secrets.redact(text) }], details, isError: true };
}

function toonEnabled(settings: Settings, server: string): boolean {
  const t = settings.toonEncode;
  return t === true || (Array.isArray(t) && t.includes(server));
}

function textBytes(content: PiContent[]): number {
  let n = 0;
  for (const c of content) n += c.type === 'text' ? Buffer.byteLength(c.text) : c.data.length;
  return n;
}

function describeCallError(
  entry: CatalogEntry,
  error: unknown,
  timeoutMs: number,
  signal?: AbortSignal,
): string {
  if (signal?.aborted) return `Call to ${entry.name} was cancelled.`;
  // A live connection rejects with a CallError only; anything else failed on our side of the call.
  if (!(error instanceof CallError))
    return `${entry.name} failed: ${error instanceof Error ? error.message : String(error)}`;
  const { message } = error;
  switch (error.kind) {
    case 'server':
      if (isArgumentError(message)) {
        return `${entry.name} rejected the arguments: ${message}\n${summarizeParameters(entry.inputSchema)}\nFix the arguments and call it again.`;
      }
      break;
    case 'timeout':
      return `${entry.name} got no answer within ${formatDuration(timeoutMs)} and was cancelled (server "${entry.server}"). It may have run in part: check before repeating anything that changes state, then try again (a smaller request may answer sooner).`;
    case 'dropped':
      return `Server "${entry.server}": the connection dropped mid-call during ${entry.name}, after the server received it, so the call may have run: check before repeating anything that changes state, then retry once (the next call reconnects if needed).`;
    case 'closed':
    case 'network':
      return `Server "${entry.server}" dropped the connection during ${entry.name}: ${message}. The call may have run. It will be restarted on the next call; retry once.`;
  }
  return `${entry.name} failed: ${message}`;
}

/** A server that rejects arguments in an error result (as the SDK's servers do) gets the schema summary. */
function withParameterHint(entry: CatalogEntry, content: PiContent[]): PiContent[] {
  const text = content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
  if (!isArgumentError(text)) return content;
  return [
    ...content,
    { type: 'text', text: `${summarizeParameters(entry.inputSchema)}\nFix the arguments and call it again.` },
  ];
}

type Progress = { progress: number; total?: number; message?: string };

function progressUpdate(entry: CatalogEntry, p: Progress): ToolResult {
  const of = p.total !== undefined ? `/${p.total}` : '';
  const text = `${entry.name}: progress ${p.progress}${of}${p.message ? ` — ${p.message}` : ''}`;
  return { content: [{ type: 'text', text }], details: { progress: p } };
}

async function invoke(
  connection: Connection,
  entry: CatalogEntry,
  args: Record<string, unknown>,
  tempDir: string,
  signal: AbortSignal | undefined,
  onProgress: ((p: Progress) => void) | undefined,
): Promise<CallToolResult | PiContent[]> {
  const options = { ...(signal ? { signal } : {}), ...(onProgress ? { onProgress } : {}) };
  if (entry.kind === 'resource' && entry.uri) {
    const result = await connection.readResource(entry.uri, options);
    return resourceResultToPi(result, { tempDir });
  }
  if (entry.kind === 'template' && entry.uriTemplate) {
    const result = await connection.readResource(expandUriTemplate(entry.uriTemplate, args), options);
    return resourceResultToPi(result, { tempDir });
  }
  return connection.callTool(entry.tool, args, options);
}

export async function executeTool(
  deps: ExecutorDeps,
  name: string,
  args: Record<string, unknown>,
  signal?: AbortSignal,
  onUpdate?: ProgressUpdate,
): Promise<ToolResult> {
  const words = wordsFor(deps.surface);
  const entry = deps.entry(name);
  const removed = entry ? undefined : deps.removedTool?.(name);
  if (removed) return errorResult(removed.message, deps.secrets, { server: removed.server });
  const waiting = entry ? undefined : deps.unknownTool?.(name);
  if (waiting)
    return errorResult(waiting.message, deps.secrets, { server: waiting.server, unavailable: 'needs-auth' });
  if (!entry) return errorResult(words.unknownTool(name, deps.names?.() ?? []), deps.secrets);
  const missing = missingTemplateArguments(entry, args);
  if (missing) return errorResult(missing, deps.secrets, { server: entry.server, tool: entry.tool });
  const actor = deps.server(entry.server);
  if (!actor) {
    return errorResult(
      `MCP server "${entry.server}" is not running in this session (disabled or removed). ${words.seeServers}`,
      deps.secrets,
      { server: entry.server },
    );
  }
  let started = deps.stats ? performance.now() : 0;
  const ready = await ensureConnected(actor, {
    ...(signal ? { signal } : {}),
    ...(deps.surface ? { surface: deps.surface } : {}),
  });
  if (!ready.ok)
    return errorResult(ready.error.message, deps.secrets, {
      server: entry.server,
      unavailable: ready.error.kind,
    });
  // Asked once the server is reachable (as pi-mcp-adapter does): a sign-in and its replay ask once.
  const asking = deps.stats ? performance.now() : 0;
  const refused = await deps.approve?.(entry, args, signal);
  if (refused !== undefined)
    return errorResult(refused, deps.secrets, { server: entry.server, tool: entry.tool, approved: false });
  // The user's time to answer is not the call's.
  if (deps.stats) started += performance.now() - asking;

  actor.send({ type: 'CALL_STARTED' });
  let ok = false;
  let content: PiContent[] = [];
  const progress = onUpdate
    ? throttleProgress<Progress>((p) => onUpdate(progressUpdate(entry, p)), deps.clock ?? unrefClock)
    : undefined;
  try {
    const raw = await invoke(ready.connection, entry, args, deps.tempDir, signal, progress?.update);
    progress?.flush();
    const converted = Array.isArray(raw)
      ? { content: raw, isError: false }
      : mcpResultToPi(raw, { tempDir: deps.tempDir });
    ok = !converted.isError;
    if (!ok) converted.content = withParameterHint(entry, converted.content);
    content = guardOutput(maybeToon(converted.content, toonEnabled(deps.settings, entry.server)), {
      limitBytes: deps.settings.outputLimitBytes,
      tempDir: deps.tempDir,
      label: entry.name,
    });
    return { content, details: { server: entry.server, tool: entry.tool }, isError: !ok };
  } catch (error) {
    const timeoutMs = actor.getSnapshot().context.definition.requestTimeoutMs;
    content = [
      { type: 'text', text: deps.secrets.redact(describeCallError(entry, error, timeoutMs, signal)) },
    ];
    return { content, details: { server: entry.server, tool: entry.tool }, isError: true };
  } finally {
    progress?.flush();
    actor.send({ type: 'CALL_FINISHED' });
    // Only calls that are counted read the clock.
    deps.stats?.record({
      server: entry.server,
      tool: entry.tool,
      ok,
      ms: performance.now() - started,
      bytes: textBytes(content),
    });
  }
}
