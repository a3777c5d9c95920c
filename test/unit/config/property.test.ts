// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are config text with ${VAR} references.
// loadConfig returns — never throws — whatever the files say, and what it returns keeps its promises.

import fc from 'fast-check';
import { describe, it } from 'vitest';
import { DIAGNOSTIC_CODES } from '../../../src/config/diagnostics.ts';
import { type LoadOptions, loadConfig } from '../../../src/config/load.ts';
import type { LoadedConfig } from '../../../src/config/types.ts';

const RUNS = 10_000;
/** Generous: CI machines are small and shared; these are not timing assertions. */
const TIMEOUT = { timeout: 180_000 };
const HOME = '/home/u';
const CWD = '/work/app';
const AGENT = `${HOME}/.pi/agent`;
const SECRET = 'S3CR3T-value-zq81';

const PATHS = {
  user: `${AGENT}/mcp.json`,
  flag: `${HOME}/flag/mcp.json`,
  flagToml: `${HOME}/flag/servers.toml`,
  claudeProject: `${CWD}/.mcp.json`,
  piProject: `${CWD}/.pi/mcp.json`,
  cursor: `${HOME}/.cursor/mcp.json`,
  cursorProject: `${CWD}/.cursor/mcp.json`,
  claudeJson: `${HOME}/.claude.json`,
  claudeDesktop: `${HOME}/.config/Claude/claude_desktop_config.json`,
  codex: `${HOME}/.codex/config.toml`,
  windsurf: `${HOME}/.codeium/windsurf/mcp_config.json`,
  vscode: `${CWD}/.vscode/mcp.json`,
  opencode: `${HOME}/.config/opencode/opencode.json`,
  opencodeProject: `${CWD}/opencode.json`,
};
const ALL_IMPORTS = ['cursor', 'claude-code', 'claude-desktop', 'codex', 'windsurf', 'vscode', 'opencode'];

function load(files: Record<string, string>, options: Partial<LoadOptions> = {}): LoadedConfig {
  return loadConfig({
    agentDir: AGENT,
    cwd: CWD,
    homeDir: HOME,
    env: { SECRET, HOME },
    projectTrusted: true,
    platform: 'linux',
    readFile: (path) => (Object.hasOwn(files, path) ? files[path] : undefined),
    ...options,
  });
}

/** Plain checks: `expect` costs too much to call tens of times in each of 10,000 runs. */
function check(condition: boolean, what: string, config: LoadedConfig): void {
  if (!condition) throw new Error(`${what}\n${JSON.stringify(config, null, 1).slice(0, 4000)}`);
}

const MAX_TIMER_MS = 2_147_483_647;

/** The shape every result must have, and the promises it makes. */
function checkInvariants(config: LoadedConfig): void {
  check(
    Array.isArray(config.servers) && Array.isArray(config.skipped) && Array.isArray(config.files),
    'arrays',
    config,
  );
  const serverNames = config.servers.map((s) => s.name);
  const sorted = [...serverNames].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  check(
    sorted.every((name, i) => name === serverNames[i]),
    'servers sorted by name',
    config,
  );
  check(new Set(serverNames).size === serverNames.length, 'server names unique', config);
  const skippedNames = new Set(config.skipped.map((s) => s.name));
  check(
    serverNames.every((name) => !skippedNames.has(name)),
    'a server is not also skipped',
    config,
  );
  for (const d of config.diagnostics) {
    check(Object.hasOwn(DIAGNOSTIC_CODES, d.code), `documented code ${d.code}`, config);
    check(['error', 'warning', 'info'].includes(d.level), 'level', config);
  }
  for (const s of config.servers) {
    check(s.name.trim() !== '', 'non-empty name', config);
    if (s.transport === 'stdio') check(typeof s.command === 'string', 'stdio has a command', config);
    else check(['http:', 'https:'].includes(new URL(s.url ?? 'x:').protocol), 'http(s) url', config);
    for (const n of [s.idleTimeoutMs, s.startupTimeoutMs, s.requestTimeoutMs]) {
      check(Number.isInteger(n) && n >= 0 && n <= MAX_TIMER_MS, 'timer-safe durations', config);
    }
    check(['direct', 'deferred', 'codemode', 'hidden'].includes(s.exposure), 'exposure', config);
    check(
      s.args.every((a) => typeof a === 'string'),
      'string args',
      config,
    );
    check(
      Object.values(s.env).every((v) => typeof v === 'string'),
      'string env',
      config,
    );
    check(
      Object.values(s.headers).every((v) => typeof v === 'string'),
      'string headers',
      config,
    );
  }
  check(
    Number.isInteger(config.settings.idleTimeoutMs) && config.settings.idleTimeoutMs <= MAX_TIMER_MS,
    'idle',
    config,
  );
  // A secret that reaches the config only through ${SECRET} never shows up in what people read.
  check(!JSON.stringify(config.diagnostics).includes(SECRET), 'no secret in diagnostics', config);
  check(!JSON.stringify(config.skipped).includes(SECRET), 'no secret in skipped', config);
}

// ---------------------------------------------------------------------------------------------
// Generators: config-shaped values with plausible and implausible parts.

const variable = fc.constantFrom(
  '${SECRET}',
  '${MISSING}',
  '${MISSING:-dflt}',
  '$env:SECRET',
  '{env:SECRET}',
  '${input:k}',
  '${',
  '~/x',
);
const text = fc.oneof(fc.string({ maxLength: 12 }), variable, fc.constantFrom('npx', 'node', '', ' '));
const scalarish = fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null));
/** Wrong-shaped values, cheap to generate (fc.jsonValue per key would make 10,000 runs slow). */
const junk = fc.constantFrom<unknown>(
  null,
  0,
  -1,
  1.5,
  1e308,
  true,
  false,
  '',
  'x',
  [],
  {},
  ['a', 1],
  { a: 1 },
  [[1]],
  {
    nested: { deep: true },
  },
);
const url = fc.oneof(
  fc.constantFrom(
    'https://mcp.example.com/mcp',
    'http://127.0.0.1:3000/sse',
    'ftp://x',
    'not a url',
    'https://${SECRET}.example.com',
    'https://h/${MISSING}',
  ),
  text,
);
const stringMap = fc.dictionary(fc.string({ maxLength: 6 }), fc.oneof(scalarish, junk), { maxKeys: 2 });
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.oneof(arb, junk);

/** Transport keys (often present) plus up to three other keys, to keep files small and runs fast. */
const coreKeys = fc.record(
  {
    command: maybe(text),
    args: maybe(fc.array(scalarish, { maxLength: 3 })),
    env: maybe(stringMap),
    url: maybe(url),
    type: maybe(fc.constantFrom('stdio', 'http', 'sse', 'streamable-http', 'local', 'remote', 'websocket')),
    headers: maybe(stringMap),
  },
  { requiredKeys: [] },
);
const otherKeys: Record<string, fc.Arbitrary<unknown>> = {
  cwd: maybe(text),
  serverUrl: url,
  auth: maybe(fc.constantFrom('bearer', 'oauth', false)),
  bearerToken: maybe(text),
  bearerTokenEnv: maybe(fc.constantFrom('SECRET', 'MISSING', 'not a name')),
  oauth: maybe(
    fc.record(
      {
        grantType: fc.constantFrom('client_credentials', 'authorization_code', 'x'),
        clientSecret: text,
        callbackPort: fc.integer(),
      },
      { requiredKeys: [] },
    ),
  ),
  lifecycle: maybe(fc.constantFrom('lazy', 'eager', 'keep-alive', 'keepalive')),
  idleTimeout: maybe(fc.oneof(fc.double(), fc.integer())),
  startupTimeoutMs: maybe(fc.integer()),
  requestTimeoutMs: maybe(fc.integer()),
  timeout: maybe(fc.double()),
  enabled: maybe(fc.boolean()),
  disabled: maybe(fc.boolean()),
  exposure: maybe(fc.constantFrom('direct', 'deferred', 'codemode', 'hidden', 'visible')),
  toolExposure: maybe(
    fc.dictionary(fc.string({ maxLength: 5 }), fc.constantFrom('direct', 'codemode', 'nope'), { maxKeys: 2 }),
  ),
  directTools: maybe(fc.oneof(fc.boolean(), fc.array(fc.string({ maxLength: 5 }), { maxLength: 2 }))),
  includeTools: maybe(fc.array(fc.string({ maxLength: 5 }), { maxLength: 2 })),
  excludeTools: maybe(fc.array(fc.string({ maxLength: 5 }), { maxLength: 2 })),
  description: maybe(text),
  environment: stringMap,
  startup_timeout_sec: fc.oneof(fc.double(), junk),
  env_http_headers: maybe(
    fc.dictionary(fc.string({ maxLength: 4 }), fc.constantFrom('SECRET', 'MISSING'), { maxKeys: 2 }),
  ),
  env_vars: maybe(fc.array(fc.constantFrom('SECRET', 'MISSING', 'x y'), { maxLength: 2 })),
  lifecyle: junk,
};
const someOtherKeys = fc
  .shuffledSubarray(Object.keys(otherKeys), { maxLength: 3 })
  .chain((keys) => fc.record(Object.fromEntries(keys.map((key) => [key, otherKeys[key]!]))));
const serverEntry = fc.tuple(coreKeys, someOtherKeys).map(([core, other]) => ({ ...core, ...other }));
const serverName = fc.oneof(
  fc.string({ maxLength: 10 }),
  fc.constantFrom('github', 'a.b/c', '__proto__', '', ' ', 'constructor'),
);
const serverMap = fc.oneof(fc.dictionary(serverName, fc.oneof(serverEntry, junk), { maxKeys: 3 }), junk);
const settings = fc.oneof(
  fc.record(
    {
      toolPrefix: maybe(fc.constantFrom('server', 'short', 'none', 'servers')),
      idleTimeout: maybe(fc.double()),
      toonEncode: maybe(fc.oneof(fc.boolean(), fc.array(serverName, { maxLength: 2 }))),
      captureStats: maybe(
        fc.oneof(fc.boolean(), fc.record({ path: text, flushDelayMs: fc.integer() }, { requiredKeys: [] })),
      ),
      proxyTool: maybe(fc.boolean()),
      outputLimitBytes: maybe(fc.integer()),
    },
    { requiredKeys: [] },
  ),
  junk,
);
const configObject = fc.record(
  {
    mcpServers: serverMap,
    'mcp-servers': serverMap,
    servers: serverMap,
    mcp_servers: serverMap,
    mcp: serverMap,
    imports: maybe(
      fc.array(fc.oneof(fc.constantFrom(...ALL_IMPORTS), fc.string({ maxLength: 6 })), { maxLength: 3 }),
    ),
    settings,
    inputs: junk,
    projects: fc.constant({ [CWD]: { mcpServers: { local: { command: 'local-cmd' } } } }),
  },
  { requiredKeys: [] },
);

/** JSON text: valid config, valid JSON of any shape, damaged JSON, or any string. */
const jsonText = fc.oneof(
  { weight: 4, arbitrary: configObject.map((value) => JSON.stringify(value, null, 1)) },
  { weight: 1, arbitrary: fc.json({ maxDepth: 3 }) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        configObject.map((value) => JSON.stringify(value)),
        fc.nat(),
        fc.constantFrom('', ',', '}', '"', '/*', '//', '\uFEFF', '\n'),
      )
      .map(([t, at, insert]) => t.slice(0, at % (t.length + 1)) + insert + t.slice(at % (t.length + 1))),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
);

function tomlValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'nan';
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(tomlValue).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    return `{ ${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)} = ${tomlValue(v)}`)
      .join(', ')} }`;
  }
  return '""';
}

/** TOML text in Codex's shape (`[mcp_servers.<name>]`), damaged TOML, or any string. */
const tomlText = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.dictionary(serverName, serverEntry, { maxKeys: 3 }).map((servers) =>
      Object.entries(servers)
        .map(
          ([name, entry]) =>
            `[mcp_servers.${JSON.stringify(name)}]\n${Object.entries(entry)
              .map(([k, v]) => `${JSON.stringify(k)} = ${tomlValue(v)}`)
              .join('\n')}`,
        )
        .join('\n\n'),
    ),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 60 }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constant('[mcp_servers.a]\ncommand = "x"\nargs = ["1"]\n'),
        fc.nat(),
        fc.constantFrom('[', '"', '=', '\n[[', ']]'),
      )
      .map(([t, at, insert]) => t.slice(0, at % (t.length + 1)) + insert + t.slice(at % (t.length + 1))),
  },
);

describe('loadConfig never throws', () => {
  it('on arbitrary JSON text in the user and project files', TIMEOUT, () => {
    fc.assert(
      fc.property(jsonText, jsonText, fc.boolean(), (userText, projectText, trusted) => {
        const config = load(
          { [PATHS.user]: userText, [PATHS.piProject]: projectText },
          { projectTrusted: trusted },
        );
        checkInvariants(config);
      }),
      { numRuns: RUNS },
    );
  });

  it('on arbitrary TOML text (Codex import and a --mcp-config .toml file)', TIMEOUT, () => {
    fc.assert(
      fc.property(tomlText, tomlText, (codexText, flagText) => {
        const config = load(
          { [PATHS.flagToml]: flagText, [PATHS.codex]: codexText },
          { configPath: PATHS.flagToml },
        );
        checkInvariants(config);
        // The flag file imports nothing, so Codex's file is never read as a source here.
        check(
          config.servers.every((s) => s.source.kind === 'flag'),
          'only flag servers',
          config,
        );
      }),
      { numRuns: RUNS },
    );
    fc.assert(
      fc.property(tomlText, (codexText) => {
        checkInvariants(load({ [PATHS.user]: '{"imports":["codex"]}', [PATHS.codex]: codexText }));
      }),
      { numRuns: RUNS },
    );
  });

  it('on arbitrary file layouts, imports, environments, trust and unreadable files', TIMEOUT, () => {
    const pathKey = fc.constantFrom(...(Object.keys(PATHS) as Array<keyof typeof PATHS>));
    const layoutArb = fc.record({
      files: fc.dictionary(pathKey, fc.oneof(jsonText, tomlText), { maxKeys: 8 }),
      unreadable: fc.array(pathKey, { maxLength: 2 }),
      trusted: fc.boolean(),
      useFlag: fc.boolean(),
      imports: fc.subarray(ALL_IMPORTS),
      directTools: fc.option(
        fc.oneof(fc.constantFrom('*', '__none__', 'github,a/b', '/,x/'), fc.string({ maxLength: 8 })),
      ),
      piServers: fc.option(
        fc.oneof(
          junk,
          fc.anything({ maxDepth: 1 }),
          fc.array(fc.record({ name: serverName, command: text })),
        ),
      ),
    });
    fc.assert(
      fc.property(layoutArb, (l) => {
        const files: Record<string, string> = {};
        for (const [key, content] of Object.entries(l.files))
          files[PATHS[key as keyof typeof PATHS]] = content;
        if (files[PATHS.user] === undefined) files[PATHS.user] = JSON.stringify({ imports: l.imports });
        const unreadable = new Set(l.unreadable.map((key) => PATHS[key]));
        const config = loadConfig({
          agentDir: AGENT,
          cwd: CWD,
          homeDir: HOME,
          env: { SECRET, HOME, ...(l.directTools === null ? {} : { MCP_DIRECT_TOOLS: l.directTools }) },
          projectTrusted: l.trusted,
          platform: 'linux',
          ...(l.useFlag ? { configPath: PATHS.flag } : {}),
          ...(l.piServers === null ? {} : { piServers: l.piServers }),
          readFile: (path) => {
            if (unreadable.has(path)) throw Object.assign(new Error('denied'), { code: 'EACCES' });
            return Object.hasOwn(files, path) ? files[path] : undefined;
          },
        });
        checkInvariants(config);
        if (!l.trusted) {
          const projectFiles = [
            PATHS.claudeProject,
            PATHS.piProject,
            PATHS.cursorProject,
            PATHS.vscode,
            PATHS.opencodeProject,
          ];
          check(
            config.servers.every((s) => !projectFiles.includes(s.source.file)),
            'untrusted project unused',
            config,
          );
        }
      }),
      { numRuns: RUNS },
    );
  });
});
