// `pi-mcp-actors`: the same config, actors and catalog as the extension, outside Pi.
//   status | tools [server] | search <query>|- [--json] | call <tool> [json-args] | inspect | allow | forget
// Options: --config <path> (instead of ~/.pi/agent/mcp.json), --cwd <project dir>, --trust-project.

import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { createRuntime, type Runtime } from '../actors/session-actor.ts';
import { createAuthPort } from '../adapters/mcp/auth/sign-in.ts';
import { createMcpConnector } from '../adapters/mcp/index.ts';
import { withNpxResolution } from '../adapters/mcp/npx-connector.ts';
import { defaultNpxCacheFile, defaultNpxPackageRoot } from '../adapters/mcp/npx-resolver.ts';
import { defaultProtocolErasFile, fileProtocolEraStore } from '../adapters/mcp/protocol-eras.ts';
import { tokenStoreFor } from '../auth/default-store.ts';
import type { AuthPort } from '../auth/port.ts';
import { createCacheStore } from '../catalog/cache.ts';
import { searchIndexOf } from '../catalog/search.ts';
import { describeServers, offeredCounts, sharedHostOf } from '../commands/server-status.ts';
import { agentDirFrom } from '../config/agent-dir.ts';
import { CACHE_FILE_NAME } from '../config/defaults.ts';
import { loadConfig } from '../config/load.ts';
import { readProjectConsent } from '../config/project-consent.ts';
import type { LoadedConfig } from '../config/types.ts';
import { unreadableText } from '../config/unreadable.ts';
import { nullLogger } from '../logger.ts';
import { SecretValues } from '../redact/index.ts';
import { serverErrorText } from '../server-error-text.ts';
import { ensureConnected } from '../session/ensure-connected.ts';
import { silentHost } from '../session/host-port.ts';
import { plainText } from '../terminal-text.ts';
import type { FormDialogs } from '../tools/elicit-dialogs.ts';
import { oneLine } from '../tools/tool-search.ts';
import { runAllowCommand } from './allow-command.ts';
import { type AuthCliIo, login, logout } from './auth-commands.ts';
import { serversToLookIn } from './call-target.ts';
import { runForgetCommand } from './forget-command.ts';
import { runHostCommand } from './host-command.ts';
import { runInspectCommand } from './inspect-command.ts';
import { type PromptLine, promptLineFrom } from './prompt-line.ts';
import { listUnknownServers, searchForPerson } from './search-command.ts';
import { cliApprover, cliServerRequests } from './server-requests.ts';
import { createCliTempDir } from './temp-dir.ts';
import { hidingKnownSecrets, terminalDialogs } from './terminal-dialogs.ts';

export interface CliIo extends AuthCliIo {
  out(text: string): void;
  err(text: string): void;
  stdinLines(): AsyncIterable<string>;
  /** The terminal's dialogs (forms, approvals); absent when stdin is not a terminal. */
  dialogs?: FormDialogs;
}

interface CliOptions {
  command: string;
  positional: string[];
  config?: string;
  cwd: string;
  json: boolean;
  trustProject: boolean;
  all: boolean;
}

export const USAGE = `Usage: pi-mcp-actors <command> [options]
Commands:
  status                 connect every enabled server; print state, tool count, errors (exit 1 if one failed)
  tools [server]         list tools (from the metadata cache when warm, else by connecting)
  search <query> | -     search tools like ToolSearch; - reads one query per line from stdin
  call <tool> [json]     call a tool with a JSON object of arguments
  login <server>         sign in to an OAuth server (browser, or paste the redirect URL); every session uses it
  logout <server>        forget the server's tokens and registered client
  inspect                serve the live statechart inspector on 127.0.0.1
  host [stop]            the shared MCP host (settings.sharedHost): its sessions and server instances; stop it
  allow [server…|--all]  allow servers of the project's files (remembered per project, asked again when
                         an entry or a script it names changes); without a name, list those waiting
  forget [server…|--all] take back the consent given to servers of the project's files; without a name,
                         list those allowed
Options:
  --config <path>        use this MCP config instead of ~/.pi/agent/mcp.json
  --cwd <dir>            project directory (default: current directory)
  --trust-project        start every server of the project's files, allowed or not
  --json                 machine-readable output (search, tools, status)
Environment: PI_CODING_AGENT_DIR (agent dir, default ~/.pi/agent)`;

export function parseCliArgs(argv: string[]): CliOptions | string {
  const options: CliOptions = {
    command: '',
    positional: [],
    cwd: process.cwd(),
    json: false,
    trustProject: false,
    all: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--config') options.config = argv[++i];
    else if (arg === '--cwd') options.cwd = resolve(argv[++i] ?? '.');
    else if (arg === '--json') options.json = true;
    else if (arg === '--trust-project') options.trustProject = true;
    else if (arg === '--all') options.all = true;
    else if (arg === '--help' || arg === '-h') return USAGE;
    else if (arg.startsWith('--')) return `Unknown option ${arg}\n${USAGE}`;
    else if (!options.command) options.command = arg;
    else options.positional.push(arg);
  }
  if (options.config === undefined && argv.includes('--config')) return `--config needs a path\n${USAGE}`;
  return options.command ? options : USAGE;
}

async function openRuntime(
  options: CliOptions,
  io: CliIo,
  auth: AuthPort,
  tempDir: string,
  secrets: SecretValues,
): Promise<Runtime> {
  const env = process.env;
  const askApproval = cliApprover(io.dialogs);
  const homeDir = homedir();
  const agentDir = agentDirFrom(env, homeDir);
  const runtime = createRuntime({
    host: silentHost(),
    secrets,
    agentDir,
    onHostUnavailable: (text) => io.err(text),
    auth,
    connector: withNpxResolution(
      createMcpConnector({
        tokenStore: auth.store,
        surface: 'cli',
        protocolEras: fileProtocolEraStore(defaultProtocolErasFile(agentDir)),
      }),
      defaultNpxCacheFile(agentDir),
      defaultNpxPackageRoot(agentDir),
    ),
    // Project files are read; their servers start only when allowed (`allow`) or with --trust-project.
    loadConfig: (request, live) =>
      loadConfig({
        agentDir,
        cwd: request.cwd,
        homeDir,
        env,
        projectTrusted: true,
        ...(request.projectTrusted ? {} : { projectConsent: readProjectConsent(agentDir, request.cwd) }),
        ...(options.config ? { configPath: resolve(options.config) } : {}),
        ...live,
      }),
    cache: createCacheStore({ file: join(agentDir, CACHE_FILE_NAME) }),
    logger: nullLogger,
    tempDir,
    // `search` answers from the cache and exits: no model call follows that a started server would serve.
    startLoadedServers: false,
    // Each command connects only the servers it needs (a call, its tool's server).
    warmStart: false,
    surface: 'cli',
    // The same capabilities as Pi: a server offers the CLI the tools it offers Pi.
    serverRequests: cliServerRequests(options.cwd, io.dialogs),
    ...(askApproval ? { askApproval } : {}),
  });
  await runtime.start({ cwd: options.cwd, projectTrusted: options.trustProject });
  const config = runtime.actor.getSnapshot().context.config;
  for (const d of config?.diagnostics ?? []) {
    if (d.level !== 'info')
      io.err(
        `${d.level}: ${[d.file, d.path].filter(Boolean).join(' ')}: ${d.message}${d.fix ? ` (${d.fix})` : ''}`,
      );
  }
  for (const s of config?.skipped ?? [])
    io.err(`skipped ${s.name}: ${s.reason}${s.fix ? ` (${s.fix})` : ''}`);
  return runtime;
}

async function connectAll(runtime: Runtime, io: CliIo): Promise<boolean> {
  const servers = runtime.servers();
  let ok = true;
  await Promise.all(
    Object.entries(servers).map(async ([name, ref]) => {
      io.err(`connecting ${name}…`);
      const result = await ensureConnected(ref, { surface: 'cli' });
      if (!result.ok) ok = false;
      // The error and the server's stderr are in the status below, once.
      io.err(result.ok ? `${name}: connected` : `${name}: failed`);
    }),
  );
  return ok;
}

async function status(runtime: Runtime, options: CliOptions, io: CliIo): Promise<number> {
  const config = runtime.actor.getSnapshot().context.config;
  const ok = await connectAll(runtime, io);
  const servers = runtime.servers();
  if (options.json) {
    const rows = Object.entries(servers).map(([name, ref]) => {
      const s = ref.getSnapshot();
      const counts = s.context.catalog ? offeredCounts(runtime.catalog(), name) : undefined;
      return {
        name,
        state: s.value,
        sharedHost: sharedHostOf(ref)?.pid ?? null,
        sharedHostState: sharedHostOf(ref)?.instance?.state ?? null,
        tools: counts?.tools ?? null,
        resources: counts?.resources ?? null,
        error: s.context.lastError ? serverErrorText(s.context.lastError) : null,
      };
    });
    io.out(
      JSON.stringify(
        { servers: rows, skipped: config?.skipped.map((s) => ({ name: s.name, reason: s.reason })) ?? [] },
        null,
        2,
      ),
    );
  } else {
    io.out(
      describeServers(servers, { secrets: runtime.secrets, surface: 'cli', catalog: runtime.catalog() }) ||
        noServersText(config),
    );
  }
  const broken = (config?.diagnostics ?? []).some((d) => d.level === 'error');
  return ok && !broken ? 0 : 1;
}

/** What `status` says when no server runs: a config that could not be read is not "no servers". */
function noServersText(config: LoadedConfig | undefined): string {
  return (
    unreadableText(config?.diagnostics) ??
    (config?.skipped.length
      ? `No MCP server runs: ${config.skipped.map((s) => s.name).join(', ')} skipped (the reasons are above).`
      : undefined) ??
    'No MCP servers configured. Add them to ~/.pi/agent/mcp.json or .pi/mcp.json (see docs/config.md).'
  );
}

async function tools(runtime: Runtime, options: CliOptions, io: CliIo): Promise<number> {
  const server = options.positional[0];
  const servers = runtime.servers();
  if (server && !servers[server]) {
    io.err(`Unknown server "${server}".`);
    return 1;
  }
  // Only the servers whose tools are not in the cache start (the named one, or every such server).
  const known = runtime.actor.getSnapshot().context.catalogs;
  if (server && !known[server]) await ensureConnected(servers[server]!, { surface: 'cli' });
  const failed = server ? [] : await listUnknownServers(runtime, io.err);
  for (const line of failed) io.err(line);
  const entries = runtime.catalog().entries.filter((e) => !server || e.server === server);
  if (options.json)
    io.out(
      JSON.stringify(
        entries.map(({ name, server: s, tool, description, exposure, uriTemplate }) => ({
          name,
          server: s,
          tool,
          description,
          exposure,
          ...(uriTemplate === undefined ? {} : { uriTemplate }),
        })),
        null,
        2,
      ),
    );
  else
    io.out(
      entries.map((e) => `${e.name}  ${oneLine(e.description, 90)}`).join('\n') ||
        unreadableText(runtime.actor.getSnapshot().context.config?.diagnostics) ||
        'No tools.',
    );
  return 0;
}

async function search(runtime: Runtime, options: CliOptions, io: CliIo): Promise<number> {
  const failed = await listUnknownServers(runtime, io.err);
  const unreadable = unreadableText(runtime.actor.getSnapshot().context.config?.diagnostics);
  const answer = async (query: string) => {
    if (!options.json) {
      io.out(searchForPerson(runtime, query));
      for (const line of [...failed, ...(unreadable ? [unreadable] : [])]) io.out(`Note: ${line}`);
      return;
    }
    const catalog = runtime.catalog();
    const hits = searchIndexOf(catalog)
      .search(query, 5)
      .map((h) => {
        const e = catalog.byName.get(h.name)!;
        return {
          name: e.name,
          server: e.server,
          tool: e.tool,
          score: h.score,
          description: oneLine(e.description, 120),
        };
      });
    io.out(JSON.stringify({ query, results: hits }));
  };
  if (options.positional[0] === '-') {
    for await (const line of io.stdinLines()) if (line.trim()) await answer(line.trim());
    return 0;
  }
  const query = options.positional.join(' ');
  if (!query) {
    io.err('search needs a query (or - to read queries from stdin)');
    return 2;
  }
  await answer(query);
  return 0;
}

async function call(runtime: Runtime, options: CliOptions, io: CliIo): Promise<number> {
  const [name, json] = options.positional;
  if (!name) {
    io.err(
      'call needs a tool name: pi-mcp-actors call <tool> \'{"name": "value"}\' (pi-mcp-actors tools lists them)',
    );
    return 2;
  }
  let args: Record<string, unknown> = {};
  if (json) {
    try {
      args = JSON.parse(json) as Record<string, unknown>;
    } catch (error) {
      io.err(
        `The arguments are not valid JSON (${(error as Error).message}). Give one JSON object in single quotes: pi-mcp-actors call ${name} '{"name": "value"}'`,
      );
      return 2;
    }
  }
  if (!runtime.catalog().byName.has(name)) {
    const context = runtime.actor.getSnapshot().context;
    const refs = runtime.servers();
    const lookIn = serversToLookIn(
      name,
      Object.keys(refs).map((server) => ({
        name: server,
        prefix:
          context.config?.servers.find((d) => d.name === server)?.toolPrefix ??
          context.config?.settings.toolPrefix ??
          'server',
        listed: context.catalogs[server] !== undefined,
      })),
    );
    if (lookIn.length > 0) {
      io.err(`${name} is not in the tool cache; connecting ${lookIn.join(', ')} to look for it…`);
      await Promise.all(lookIn.map((server) => ensureConnected(refs[server]!, { surface: 'cli' })));
    }
  }
  const result = await runtime.callTool(name, args);
  for (const c of result.content)
    io.out(c.type === 'text' ? c.text : `[image ${c.mimeType}, ${c.data.length} base64 chars]`);
  const unreadable = unreadableText(runtime.actor.getSnapshot().context.config?.diagnostics);
  if (result.isError && unreadable && !runtime.catalog().byName.has(name)) io.err(unreadable);
  return result.isError ? 1 : 0;
}

export async function runCli(argv: string[], rawIo: CliIo): Promise<number> {
  // The known secrets of this run: the runtime adds the config's, the sign-in store the tokens.
  const secrets = new SecretValues();
  // Every line the CLI prints, text or JSON, passes the one redaction and the one terminal sanitizer
  // (JSON escapes C0 controls itself; C1 controls and bidi overrides inside its strings are removed).
  const io: CliIo = {
    out: (text) => rawIo.out(plainText(secrets.redact(text))),
    err: (text) => rawIo.err(plainText(secrets.redact(text))),
    stdinLines: () => rawIo.stdinLines(),
    // The question is ours and the answer the user's: neither passes the redaction.
    ...(rawIo.promptLine ? { promptLine: rawIo.promptLine } : {}),
    ...(rawIo.dialogs ? { dialogs: hidingKnownSecrets(rawIo.dialogs, secrets) } : {}),
  };
  const options = parseCliArgs(argv);
  if (typeof options === 'string') {
    (options === USAGE ? io.out : io.err)(options);
    return options === USAGE ? 0 : 2;
  }
  // The inspector's URLs are printed for the user to copy: their token is theirs, not redacted.
  if (options.command === 'inspect')
    return runInspectCommand({
      ...io,
      out: (text) => rawIo.out(plainText(text)),
    });
  if (options.command === 'host') return runHostCommand(options.positional, options.json, io);
  if (options.command === 'forget')
    return runForgetCommand(
      { agentDir: agentDirFrom(process.env, homedir()), cwd: options.cwd },
      options.positional,
      options.all,
      io,
    );
  if (options.command === 'allow') {
    const homeDir = homedir();
    return runAllowCommand(
      {
        agentDir: agentDirFrom(process.env, homeDir),
        cwd: options.cwd,
        homeDir,
        env: process.env,
        ...(options.config ? { configPath: resolve(options.config) } : {}),
      },
      options.positional,
      options.all,
      io,
    );
  }
  const auth = createAuthPort(tokenStoreFor(agentDirFrom(process.env, homedir())));
  const commands: Record<string, (r: Runtime, o: CliOptions, i: CliIo) => Promise<number>> = {
    status,
    tools,
    search,
    call,
    login: (r, o, i) => login(r, o.positional[0], i),
    logout: (r, o, i) => logout(r, auth, o.positional[0], i),
  };
  const run = commands[options.command];
  if (!run) {
    io.err(`Unknown command "${options.command}"\n${USAGE}`);
    return 2;
  }
  const temp = createCliTempDir();
  // What `call` prints is a tool's result, the server's data: only known secrets are removed from it.
  const redactOut = (text: string) =>
    options.command === 'call' ? secrets.redactKnown(text) : secrets.redact(text);
  const printing: CliIo = {
    ...io,
    out: (text) => {
      temp.printed(text);
      rawIo.out(plainText(redactOut(text)));
    },
  };
  try {
    const runtime = await openRuntime(options, printing, auth, temp.path, secrets);
    try {
      return await run(runtime, options, printing);
    } finally {
      await runtime.stop();
      runtime.dispose();
    }
  } finally {
    temp.dispose();
  }
}

export const processIo: CliIo = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  stdinLines: () => createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY }),
  ...(process.stdin.isTTY && process.stderr.isTTY
    ? { dialogs: terminalDialogs(process.stdin, process.stderr) }
    : {}),
  promptLine: (question, signal) => {
    stdinPrompt ??= promptLineFrom(process.stdin, process.stderr);
    return stdinPrompt(question, signal);
  },
};
let stdinPrompt: PromptLine | undefined;
