/**
 * Harvests the tool lists of the untouched evaluation servers (bench/untouched/servers.json): installs
 * the pinned npm packages into a scratch folder (scripts off, so no browser download), starts each one
 * over stdio with its dummy environment, asks tools/list with the SDK client, and writes
 * bench/data/untouched/catalog/<name>.json in the format of bench/data/catalog.
 *
 *   npx tsx bench/untouched/harvest.ts [--set untouched2] [--dir /tmp/untouched] [--only name,name]
 *
 * `--set NAME` reads bench/NAME/servers.json and writes bench/data/NAME/catalog (default: untouched).
 * Each package is installed into its own folder under the scratch folder, so one package's broken
 * dependency does not stop the others. `{dir}` in a server's args is that package's folder.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

interface ServerSpec {
  name: string;
  package: string;
  bin?: string;
  args?: string[];
  env?: Record<string, string>;
}

const here = fileURLToPath(new URL('.', import.meta.url));
const LIST_TIMEOUT_MS = 60_000;

function option(flag: string): string | undefined {
  const i = process.argv.indexOf(flag);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const set = option('--set') ?? 'untouched';
const OUT = join(here, '..', 'data', set, 'catalog');
const dir = option('--dir') ?? join(tmpdir(), `pi-mcp-${set}-servers`);
const only = option('--only')?.split(',');
const specs = (
  JSON.parse(readFileSync(join(here, '..', set, 'servers.json'), 'utf8')) as { servers: ServerSpec[] }
).servers.filter((s) => !only || only.includes(s.name));

function packageName(spec: string): string {
  const at = spec.lastIndexOf('@');
  return at > 0 ? spec.slice(0, at) : spec;
}

/** The scratch folder one package is installed into. */
function packageDir(spec: ServerSpec): string {
  return join(dir, spec.name);
}

function install(): void {
  for (const spec of specs) {
    const folder = packageDir(spec);
    if (existsSync(join(folder, 'node_modules', packageName(spec.package), 'package.json'))) continue;
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'package.json'), '{"private":true}\n');
    console.log(`installing ${spec.package} into ${folder}`);
    try {
      execFileSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', spec.package], {
        cwd: folder,
        stdio: 'inherit',
      });
    } catch {
      console.log(`${spec.name}: install FAILED`);
    }
  }
}

/** The file a package's bin points at: the only one, or the one named in servers.json. */
function entryPoint(spec: ServerSpec): string {
  const root = join(packageDir(spec), 'node_modules', packageName(spec.package));
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    bin?: string | Record<string, string>;
  };
  if (typeof pkg.bin === 'string') return join(root, pkg.bin);
  const bins = Object.entries(pkg.bin ?? {});
  const chosen = bins.find(([name]) => name === spec.bin) ?? (bins.length === 1 ? bins[0] : undefined);
  if (!chosen) throw new Error(`${spec.name}: pick one of the bins ${bins.map(([n]) => n).join(', ')}`);
  return join(root, chosen[1]);
}

async function harvest(spec: ServerSpec): Promise<void> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [entryPoint(spec), ...(spec.args ?? []).map((a) => a.replaceAll('{dir}', packageDir(spec)))],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: join(dir, 'home'),
      ...Object.fromEntries(
        Object.entries(spec.env ?? {}).map(([k, v]) => [k, v.replaceAll('{dir}', packageDir(spec))]),
      ),
    },
    cwd: packageDir(spec),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-2_000);
  });
  const client = new Client({ name: 'pi-mcp-actors-harvest', version: '0.1.0' });
  try {
    await client.connect(transport, { timeout: LIST_TIMEOUT_MS });
    const tools = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, { timeout: LIST_TIMEOUT_MS });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    const info = client.getServerVersion();
    const catalog = {
      server: spec.name,
      package: spec.package,
      ...(info?.title ? { title: info.title } : {}),
      ...(client.getInstructions() ? { instructions: client.getInstructions() } : {}),
      tools: tools.map((t) => ({
        name: t.name,
        ...(t.title ? { title: t.title } : {}),
        ...(t.description ? { description: t.description } : {}),
        inputSchema: t.inputSchema,
      })),
    };
    writeFileSync(join(OUT, `${spec.name}.json`), `${JSON.stringify(catalog, null, 1)}\n`);
    console.log(`${spec.name}: ${tools.length} tools`);
  } catch (error) {
    console.log(
      `${spec.name}: FAILED ${(error as Error).message}\n  ${stderr.trim().split('\n').slice(-3).join('\n  ')}`,
    );
  } finally {
    await client.close().catch(() => {});
  }
}

install();
mkdirSync(OUT, { recursive: true });
mkdirSync(join(dir, 'home'), { recursive: true });
for (const spec of specs) await harvest(spec);
console.log(`wrote ${dirname(OUT)}`);
