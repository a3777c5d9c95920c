// Human-readable views of server actor snapshots: the status-bar line, /mcp, the CLI. They read the
// snapshots (the one source of truth) and never show a secret: only names, states and error text.

import type { SessionContext } from '../machines/session.machine.ts';
import { redact } from '../redact.ts';
import type { ServerActorRef } from './ensure-connected.ts';

const STATE_LABEL: Record<string, string> = {
  init: 'not started',
  connecting: 'connecting',
  connected: 'connected',
  needsAuth: 'needs auth',
  backoff: 'failed, retrying',
  closed: 'idle',
};

export function stateOf(ref: ServerActorRef): string {
  const value = ref.getSnapshot().value;
  return typeof value === 'string' ? value : (Object.keys(value)[0] ?? 'unknown');
}

export function statusLine(
  context: SessionContext,
  refs: Record<string, ServerActorRef>,
): string | undefined {
  const total = context.config?.servers.length ?? 0;
  if (total === 0) return undefined;
  const states = Object.values(refs).map(stateOf);
  const connected = states.filter((s) => s === 'connected').length;
  const auth = states.filter((s) => s === 'needsAuth').length;
  const failed = states.filter((s) => s === 'backoff').length;
  const parts = [`MCP ${connected}/${total} connected`];
  if (auth > 0) parts.push(`${auth} need${auth === 1 ? 's' : ''} auth`);
  if (failed > 0) parts.push(`${failed} failing`);
  return parts.join(' · ');
}

function ago(at: number | undefined): string {
  if (!at) return '';
  const s = Math.max(0, Math.round((Date.now() - at) / 1000));
  return s < 60 ? ` (${s}s ago)` : ` (${Math.round(s / 60)}m ago)`;
}

function lastLines(text: string, n: number): string {
  return text.trimEnd().split('\n').slice(-n).join('\n');
}

/** One block per server: state, lifecycle, tool count, last error with the stderr tail, hints. */
export function describeServers(
  refs: Record<string, ServerActorRef>,
  options: { brief?: boolean } = {},
): string {
  const blocks: string[] = [];
  for (const [name, ref] of Object.entries(refs).sort(([a], [b]) => a.localeCompare(b))) {
    const state = stateOf(ref);
    const ctx = ref.getSnapshot().context;
    // Servers print what they like on stderr, tokens included: never show a configured secret.
    const clean = (text: string) => redact(text);
    const tools = ctx.catalog?.tools.length;
    // A lazy server whose last attempt failed rests in `closed` until the next call retries it.
    const failedAndResting = state === 'closed' && ctx.lastError !== undefined && ctx.attempt > 0;
    const head = `${name}: ${failedAndResting ? 'failed, the next call retries' : (STATE_LABEL[state] ?? state)}`;
    if (options.brief) {
      if (state === 'needsAuth')
        blocks.push(`MCP server ${name} needs authentication: run /mcp-auth ${name}`);
      else if (ctx.lastError) blocks.push(`MCP server ${name} failed: ${clean(ctx.lastError.message)}`);
      else blocks.push(`MCP server ${head}`);
      continue;
    }
    const lines = [
      `${head} — ${ctx.definition.lifecycle}, ${ctx.definition.transport}${tools !== undefined ? `, ${tools} tools` : ''}`,
    ];
    if (ctx.inFlight > 0) lines.push(`  ${ctx.inFlight} call(s) in flight`);
    if (state === 'needsAuth') lines.push(`  needs authentication: run /mcp-auth ${name}`);
    if (state === 'backoff' && ctx.nextRetryAt) {
      lines.push(
        `  next try in ${Math.max(0, Math.round((ctx.nextRetryAt - Date.now()) / 1000))}s (attempt ${ctx.attempt}); /mcp reconnect ${name} retries now`,
      );
    }
    if (ctx.lastError) lines.push(`  last error${ago(ctx.lastError.at)}: ${clean(ctx.lastError.message)}`);
    if (ctx.lastError && ctx.stderrTail) {
      lines.push(
        '  stderr:',
        ...lastLines(clean(ctx.stderrTail), 5)
          .split('\n')
          .map((l: string) => `    ${l}`),
      );
    }
    blocks.push(lines.join('\n'));
  }
  return blocks.join('\n');
}
