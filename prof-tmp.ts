import fc from 'fast-check';
import { loadConfig } from './src/config/load.ts';
const HOME = '/home/u'; const CWD = '/work/app'; const AGENT = HOME + '/.pi/agent'; const SECRET='S3CR3T-value-zq81';
const ALL_IMPORTS = ['cursor', 'claude-code', 'claude-desktop', 'codex', 'windsurf', 'vscode', 'opencode'];
const variable = fc.constantFrom('${SECRET}', '${MISSING}', '${MISSING:-dflt}', '$env:SECRET', '{env:SECRET}', '${input:k}', '${', '~/x');
const text = fc.oneof(fc.string({ maxLength: 12 }), variable, fc.constantFrom('npx', 'node', '', ' '));
const scalarish = fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null));
/** Wrong-shaped values, cheap to generate (fc.jsonValue per key would make 10,000 runs slow). */
const junk = fc.constantFrom<unknown>(null, 0, -1, 1.5, 1e308, true, false, '', 'x', [], {}, ['a', 1], { a: 1 }, [[1]], {
  nested: { deep: true },
});
const url = fc.oneof(
  fc.constantFrom('https://mcp.example.com/mcp', 'http://127.0.0.1:3000/sse', 'ftp://x', 'not a url', 'https://${SECRET}.example.com', 'https://h/${MISSING}'),
  text,
);
const stringMap = fc.dictionary(fc.string({ maxLength: 6 }), fc.oneof(scalarish, junk), { maxKeys: 3 });
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.oneof(arb, junk);

const serverEntry = fc.record(
  {
    command: maybe(text),
    args: maybe(fc.array(scalarish, { maxLength: 4 })),
    env: maybe(stringMap),
    cwd: maybe(text),
    url: maybe(url),
    serverUrl: url,
    type: maybe(fc.constantFrom('stdio', 'http', 'sse', 'streamable-http', 'local', 'remote', 'websocket')),
    headers: maybe(stringMap),
    auth: maybe(fc.constantFrom('bearer', 'oauth', false)),
    bearerToken: maybe(text),
    bearerTokenEnv: maybe(fc.constantFrom('SECRET', 'MISSING', 'not a name')),
    oauth: maybe(fc.record({ grantType: fc.constantFrom('client_credentials', 'authorization_code', 'x'), clientSecret: text }, { requiredKeys: [] })),
    lifecycle: maybe(fc.constantFrom('lazy', 'eager', 'keep-alive', 'keepalive')),
    idleTimeout: maybe(fc.oneof(fc.double(), fc.integer())),
    startupTimeoutMs: maybe(fc.integer()),
    requestTimeoutMs: maybe(fc.integer()),
    timeout: maybe(fc.double()),
    enabled: maybe(fc.boolean()),
    disabled: maybe(fc.boolean()),
    exposure: maybe(fc.constantFrom('direct', 'deferred', 'codemode', 'hidden', 'visible')),
    toolExposure: maybe(fc.dictionary(fc.string({ maxLength: 5 }), fc.constantFrom('direct', 'codemode', 'nope'), { maxKeys: 2 })),
    directTools: maybe(fc.oneof(fc.boolean(), fc.array(fc.string({ maxLength: 5 }), { maxLength: 2 }))),
    includeTools: maybe(fc.array(fc.string({ maxLength: 5 }), { maxLength: 2 })),
    excludeTools: maybe(fc.array(fc.string({ maxLength: 5 }), { maxLength: 2 })),
    description: maybe(text),
    environment: stringMap,
    startup_timeout_sec: fc.oneof(fc.double(), junk),
    env_http_headers: maybe(fc.dictionary(fc.string({ maxLength: 4 }), fc.constantFrom('SECRET', 'MISSING'), { maxKeys: 2 })),
    env_vars: maybe(fc.array(fc.constantFrom('SECRET', 'MISSING', 'x y'), { maxLength: 2 })),
  },
  { requiredKeys: [] },
);
const serverName = fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom('github', 'a.b/c', '__proto__', '', ' ', 'constructor'));
const serverMap = fc.oneof(fc.dictionary(serverName, fc.oneof(serverEntry, junk), { maxKeys: 4 }), junk);
const settings = fc.oneof(
  fc.record(
    {
      toolPrefix: maybe(fc.constantFrom('server', 'short', 'none', 'servers')),
      idleTimeout: maybe(fc.double()),
      toonEncode: maybe(fc.oneof(fc.boolean(), fc.array(serverName, { maxLength: 2 }))),
      captureStats: maybe(fc.oneof(fc.boolean(), fc.record({ path: text, flushDelayMs: fc.integer() }, { requiredKeys: [] }))),
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
    imports: maybe(fc.array(fc.oneof(fc.constantFrom(...ALL_IMPORTS), fc.string({ maxLength: 6 })), { maxLength: 3 })),
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
      .tuple(configObject.map((value) => JSON.stringify(value)), fc.nat(), fc.constantFrom('', ',', '}', '"', '/*', '//', '\uFEFF', '\n'))
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
      .tuple(fc.constant('[mcp_servers.a]\ncommand = "x"\nargs = ["1"]\n'), fc.nat(), fc.constantFrom('[', '"', '=', '\n[[', ']]'))
      .map(([t, at, insert]) => t.slice(0, at % (t.length + 1)) + insert + t.slice(at % (t.length + 1))),
  },
);
let t = performance.now();
const samples = fc.sample(jsonText, 1000);
console.log('gen jsonText', (performance.now() - t) / 1000);
t = performance.now();
for (const s of samples) loadConfig({ agentDir: AGENT, cwd: CWD, homeDir: HOME, env: { SECRET }, projectTrusted: true, platform: 'linux', readFile: (p) => (p === AGENT + '/mcp.json' ? s : undefined) });
console.log('load', (performance.now() - t) / 1000);
t = performance.now();
const entries = fc.sample(serverEntry, 1000);
console.log('gen serverEntry', (performance.now() - t) / 1000);
t = performance.now();
fc.sample(configObject, 300);
console.log('gen configObject', (performance.now() - t) / 300);
const times: Array<[number, string]> = [];
for (const s of samples) { const t0 = performance.now(); loadConfig({ agentDir: AGENT, cwd: CWD, homeDir: HOME, env: { SECRET }, projectTrusted: true, platform: 'linux', readFile: (p) => (p === AGENT + '/mcp.json' ? s : undefined) }); times.push([performance.now() - t0, s]); }
times.sort((a, b) => b[0] - a[0]);
for (const [ms, s] of times.slice(0, 3)) console.log(ms.toFixed(1), JSON.stringify(s).slice(0, 300));
console.log('median', times[500]![0]);
import { writeFileSync } from 'node:fs';
writeFileSync('/tmp/slow.json', times[0]![1]);
