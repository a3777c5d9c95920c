// /mcp and /mcp-auth, rendered from actor snapshots as plain text that reads well in print, RPC and
// the TUI.

import { waitFor } from 'xstate';
import type { Runtime } from '../actors/session-actor.ts';
import { unreadableText } from '../config/unreadable.ts';
import type { SharedCopy } from '../ports/host.ts';
import { promptCommandName } from '../session/prompt-command-name.ts';
import { oneLine } from '../tools/tool-search.ts';
import { type ReconnectOptions, requestReconnect } from './request-reconnect.ts';
import { describeServers } from './server-status.ts';

const USAGE =
  'Usage: /mcp [status] | /mcp <server> | /mcp tools [server] | /mcp prompts [server] | /mcp reconnect [server] [--force] | /mcp enable <server> | /mcp disable <server>';

/** What a command can ask the user (absent where nobody can answer: print, RPC without a UI). */
export interface CommandUi {
  confirm?: ReconnectOptions['confirm'];
}

export async function runMcpCommand(args: string, runtime: Runtime, ui: CommandUi = {}): Promise<string> {
  const words = args.trim().split(/\s+/).filter(Boolean);
  const [verb = 'status', target] = words;
  switch (verb) {
    case 'status':
      return renderStatus(runtime, await warmCopies(runtime));
    case 'tools':
      return renderTools(runtime, target);
    case 'prompts':
      return renderPrompts(runtime, target);
    case 'reconnect': {
      const force = words.includes('--force');
      const server = words.slice(1).find((w) => w !== '--force');
      return reconnect(runtime, server, { force, ...(ui.confirm ? { confirm: ui.confirm } : {}) });
    }
    case 'enable':
    case 'disable':
      return toggle(runtime, verb, target);
    default:
      if (runtime.servers()[verb]) return renderServer(runtime, verb, await warmCopies(runtime));
      return `Unknown /mcp command "${verb}".\n${USAGE}`;
  }
}

/** The session's servers the shared host runs already (none when no host runs: none is started to ask). */
function warmCopies(runtime: Runtime): Promise<Record<string, SharedCopy>> {
  return runtime.sharedCopies?.().catch(() => ({})) ?? Promise.resolve({});
}

function renderStatus(runtime: Runtime, warm: Record<string, SharedCopy>): string {
  const context = runtime.actor.getSnapshot().context;
  const config = context.config;
  if (!config) return 'MCP: no session is running.';
  const lines: string[] = [];
  const servers = runtime.servers();
  if (Object.keys(servers).length === 0 && config.skipped.length === 0) {
    lines.push(
      unreadableText(config.diagnostics) ??
        'No MCP servers configured. Add them to ~/.pi/agent/mcp.json or .pi/mcp.json (see docs/config.md).',
    );
  }
  const described = describeServers(servers, { secrets: runtime.secrets, catalog: runtime.catalog(), warm });
  if (described) lines.push(described);
  for (const name of context.disabled) lines.push(`${name}: disabled for this session (/mcp enable ${name})`);
  for (const s of config.skipped) lines.push(`${s.name}: skipped — ${s.reason}${s.fix ? ` (${s.fix})` : ''}`);
  if (context.configError) lines.push(`Config: ${context.configError}`);
  else if (context.configNote) lines.push(`Config: ${context.configNote}`);
  for (const name of context.retiring) lines.push(`${name}: finishing its calls, then closing (config edit)`);
  const problems = config.diagnostics.filter((d) => d.level !== 'info');
  if (problems.length > 0) {
    lines.push('Config problems:');
    for (const d of problems) lines.push(`  ${[d.file, d.path].filter(Boolean).join(' ')}: ${d.message}`);
  }
  return lines.join('\n');
}

function renderTools(runtime: Runtime, server?: string): string {
  const catalog = runtime.catalog();
  const entries = catalog.entries.filter((e) => !server || e.server === server);
  if (entries.length === 0) {
    return server
      ? `No known tools for "${server}" (not connected yet, or unknown server).`
      : 'No MCP tools known yet.';
  }
  const active = new Set(runtime.actor.getSnapshot().context.activated);
  return entries
    .map((e) => {
      const mark = e.exposure === 'direct' ? 'direct' : active.has(e.name) ? 'loaded' : 'deferred';
      return `${e.name} [${mark}] ${oneLine(e.description, 80)}`;
    })
    .join('\n');
}

/** One server: its status, its prompts, and the last lines it logged (MCP log messages and stderr). */
function renderServer(runtime: Runtime, server: string, warm: Record<string, SharedCopy>): string {
  const ref = runtime.servers()[server]!;
  const context = ref.getSnapshot().context;
  const lines = [
    describeServers({ [server]: ref }, { secrets: runtime.secrets, catalog: runtime.catalog(), warm }),
  ];
  const prompts = renderPrompts(runtime, server);
  if (
    context.catalog?.prompts?.length ||
    runtime.actor.getSnapshot().context.catalogs[server]?.prompts?.length
  )
    lines.push('Prompts:', prompts);
  const templates = runtime
    .catalog()
    .entries.filter((e) => e.server === server && e.uriTemplate !== undefined)
    .map((e) => `  ${e.name} — ${e.uriTemplate}`);
  if (templates.length > 0) lines.push('Resource templates:', ...templates);
  const tail = (context.connection?.stderrTail() ?? context.stderrTail).trimEnd();
  if (tail) {
    lines.push(
      'Last log lines:',
      ...runtime.secrets
        .redact(tail)
        .split('\n')
        .slice(-LOG_LINES)
        .map((l) => `  ${l}`),
    );
  }
  return lines.join('\n');
}

const LOG_LINES = 10;

function renderPrompts(runtime: Runtime, server?: string): string {
  const catalogs = runtime.actor.getSnapshot().context.catalogs;
  const lines: string[] = [];
  for (const [name, known] of Object.entries(catalogs)) {
    if (server && name !== server) continue;
    for (const p of known.prompts ?? []) {
      const args = (p.arguments ?? []).map((a) => (a.required ? a.name : `[${a.name}]`)).join(' ');
      const about = p.description ?? p.title;
      lines.push(
        `/${promptCommandName(name, p.name)}${args ? ` ${args}` : ''}${about ? ` — ${oneLine(about, 80)}` : ''}`,
      );
    }
  }
  if (lines.length > 0) return lines.join('\n');
  return server ? `No known prompts for "${server}".` : 'No MCP prompts known yet.';
}

async function reconnect(
  runtime: Runtime,
  server: string | undefined,
  options: ReconnectOptions,
): Promise<string> {
  const servers = runtime.servers();
  if (server && !servers[server]) return `Unknown or disabled server "${server}".`;
  const kept = await requestReconnect(runtime, server, options);
  const targets = (server ? [server] : Object.keys(servers)).filter((n) => !kept.some((k) => k.server === n));
  await Promise.all(
    targets.map((name) =>
      waitFor(servers[name]!, (s) => !s.hasTag('starting') && !s.hasTag('closing') && !s.hasTag('resting'), {
        timeout: (servers[name]!.getSnapshot().context.definition.startupTimeoutMs ?? 30_000) + 1000,
      }).catch(() => undefined),
    ),
  );
  const described =
    targets.length === 0
      ? ''
      : describeServers(Object.fromEntries(targets.map((n) => [n, servers[n]!])), {
          secrets: runtime.secrets,
          catalog: runtime.catalog(),
        });
  return [...kept.map((k) => k.text), described].filter(Boolean).join('\n');
}

function toggle(runtime: Runtime, verb: 'enable' | 'disable', server?: string): string {
  if (!server) return `Usage: /mcp ${verb} <server>`;
  const context = runtime.actor.getSnapshot().context;
  if (!context.config?.servers.some((d) => d.name === server)) return `Unknown server "${server}".`;
  runtime.actor.send(verb === 'enable' ? { type: 'ENABLE', server } : { type: 'DISABLE', server });
  return verb === 'enable'
    ? `${server} enabled for this session.`
    : `${server} disabled for this session; its tools are unavailable until /mcp enable ${server}.`;
}

export function runMcpAuthCommand(args: string, runtime: Runtime): string {
  const server = args.trim();
  const servers = runtime.servers();
  if (!server) {
    const waiting = Object.entries(servers)
      .filter(([, ref]) => ref.getSnapshot().hasTag('needsSignIn'))
      .map(([n]) => n);
    return waiting.length > 0
      ? `Servers needing auth: ${waiting.join(', ')}. Run /mcp-auth <server>.`
      : 'No server needs authentication.';
  }
  const ref = servers[server];
  if (!ref) return `Unknown or disabled server "${server}".`;
  const def = ref.getSnapshot().context.definition;
  if (def.transport === 'stdio' || def.transport === 'socket')
    return `${server} is a ${def.transport} server: it does not use sign-in (/mcp-auth is for HTTP servers that need OAuth or a token). /mcp ${server} shows its state; /mcp reconnect ${server} starts it again.`;
  ref.send({ type: 'AUTHENTICATED' });
  return `${server}: retrying with the configured credentials. If it still answers 401, fix its token (bearerToken / bearerTokenEnv / headers in ${def.source.file}) and run /reload.`;
}
