// npx resolution: run an `npx <package>` server's binary straight from npm's `_npx` cache instead of
// through npm, which otherwise stays alive as a parent process (~100+ MB) for the server's lifetime.
//
// npm installs `npx` packages into `<npm cache>/_npx/<hash>/`, where <hash> is the first 16 hex digits
// of SHA-512 over the requested package specs, sorted and joined by newlines, and records the specs in
// that directory's package.json (`_npx.packages`). We recompute the directory, check that what is
// installed there is what was asked for, pick the binary the way npm does, and decide how to run it
// (node for JavaScript, the file itself for anything with another interpreter or a native binary).
//
// Whenever the outcome is not certain — an unknown npx flag, a tag or range (npx would ask the
// registry), a version mismatch, an install in progress, a project-local or global binary that npx
// would prefer, a missing bin — we return undefined and the caller runs plain `npx`. Nothing here
// spawns a process or touches the network; the work is a few synchronous file reads, and results
// are remembered for 24 h in a small JSON file.

import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { homedir } from 'node:os';
import * as path from 'node:path';

export interface NpxResolution {
  command: string;
  args: string[];
  via: 'direct-node' | 'direct-bin';
}

export interface ParsedNpxArgs {
  /** The package to run (the first `-p` package, or the positional package spec). */
  packageSpec: string;
  /** The command to run. Without `-p` this is npm's default guess; the package manifest decides. */
  binName: string;
  /** Arguments for the server, verbatim. */
  rest: string[];
  /** Further `-p` packages installed alongside. */
  extraPackages: string[];
  /** True when no `-p` was given: npm picks the binary from the package's `bin` field. */
  binFromManifest: boolean;
}

export interface ResolveNpxOptions {
  /** npm's cache directory; default from `npm_config_cache`, `.npmrc`, or `~/.npm`. */
  npmCacheDir?: string;
  /** The resolution cache, normally `<agentDir>/mcp-npx-cache.json`. */
  cacheFile: string;
  now?: () => number;
  /** The node binary for JavaScript servers (default `process.execPath`). */
  nodePath?: string;
  /** The environment npx would run with (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** The server's working directory: npx prefers binaries of the project there (default `process.cwd()`). */
  cwd?: string;
}

export const NPX_CACHE_FILE_NAME = 'mcp-npx-cache.json';
/** Where a user's npx servers resolve packages: an empty folder in the agent dir, never the project. */
export const NPX_PACKAGE_ROOT_NAME = 'mcp-npx-root';

export function defaultNpxPackageRoot(agentDir: string): string {
  return path.join(agentDir, NPX_PACKAGE_ROOT_NAME);
}
export const NPX_RESOLUTION_TTL_MS = 24 * 60 * 60 * 1000;

export function defaultNpxCacheFile(agentDir: string): string {
  return path.join(agentDir, NPX_CACHE_FILE_NAME);
}

// npx flags that change nothing about which package runs. Anything else makes us unsure.
const HARMLESS_SWITCHES = new Set([
  '-y',
  '--yes',
  '-q',
  '--quiet',
  '--silent',
  '--prefer-offline',
  '--prefer-online',
  '--no-audit',
  '--no-fund',
  '--no-update-notifier',
]);
const HARMLESS_WITH_VALUE = new Set(['--loglevel']);

export function parseNpxArgs(args: string[]): ParsedNpxArgs | undefined {
  const packages: string[] = [];
  let index = 0;
  for (; index < args.length; index++) {
    const arg = args[index]!;
    if (arg === '--') {
      index++;
      break;
    }
    if (!arg.startsWith('-') || arg === '-') break;
    const eq = arg.indexOf('=');
    const key = eq === -1 ? arg : arg.slice(0, eq);
    const inline = eq === -1 ? undefined : arg.slice(eq + 1);
    if (key === '-p' || key === '--package') {
      const value = inline ?? args[++index];
      if (value === undefined || value === '' || value.startsWith('-')) return undefined;
      packages.push(value);
    } else if (HARMLESS_WITH_VALUE.has(key)) {
      if (inline === undefined) index++;
    } else if (!HARMLESS_SWITCHES.has(key) || (inline !== undefined && inline !== 'true')) {
      return undefined;
    }
  }
  const command = args[index];
  if (command === undefined || command === '') return undefined;
  const rest = args.slice(index + 1);
  if (packages.length === 0) {
    const spec = parsePackageSpec(command);
    if (!spec) return undefined;
    return {
      packageSpec: command,
      binName: unscoped(spec.name),
      rest,
      extraPackages: [],
      binFromManifest: true,
    };
  }
  if (!packages.every((p) => parsePackageSpec(p)) || !isPlainCommandName(command)) return undefined;
  return {
    packageSpec: packages[0]!,
    binName: command,
    rest,
    extraPackages: packages.slice(1),
    binFromManifest: false,
  };
}

interface PackageSpec {
  raw: string;
  name: string;
  /** Exact version required, or undefined for a bare name (whatever npx installed). */
  exactVersion?: string;
}

const SPEC_PATTERN = /^((?:@[a-z0-9][\w.~-]*\/)?[a-z0-9][\w.~-]*)(?:@(.+))?$/i;
const EXACT_VERSION = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/;

/** Registry specs only: `name`, `@scope/name`, with an optional `@version`. Git, paths, URLs: undefined. */
function parsePackageSpec(raw: string): { name: string; version?: string } | undefined {
  const match = SPEC_PATTERN.exec(raw);
  if (!match) return undefined;
  return match[2] === undefined ? { name: match[1]! } : { name: match[1]!, version: match[2] };
}

/** Only specs whose installed copy npx would run without asking the registry again. */
function pinnedSpec(raw: string): PackageSpec | undefined {
  const spec = parsePackageSpec(raw);
  if (!spec) return undefined;
  if (spec.version === undefined) return { raw, name: spec.name };
  if (!EXACT_VERSION.test(spec.version)) return undefined; // tags (`latest`, `next`) and ranges
  return { raw, name: spec.name, exactVersion: spec.version };
}

function unscoped(name: string): string {
  return name.replace(/^@[^/]+\//, '');
}

function isPlainCommandName(command: string): boolean {
  return /^[\w.@+-]+$/.test(command) && command !== '.' && command !== '..';
}

/** The `_npx/<hash>` directory name npm uses for a list of package specs. */
export function npxInstallDirName(packages: string[]): string {
  const sorted = [...packages].sort((a, b) => a.localeCompare(b, 'en'));
  return createHash('sha512').update(sorted.join('\n')).digest('hex').slice(0, 16);
}

export function isNpxCommand(command: string): boolean {
  const base = path.basename(command).toLowerCase();
  return base === 'npx' || base === 'npx.cmd' || base === 'npx.exe';
}

interface Resolved {
  resolvedBin: string;
  isJs: boolean;
  nodeArgs: string[];
  packageVersion?: string;
}

export function resolveNpx(
  command: string,
  args: string[],
  options: ResolveNpxOptions,
): NpxResolution | undefined {
  try {
    return resolveOrThrow(command, args, options);
  } catch {
    return undefined;
  }
}

function resolveOrThrow(
  command: string,
  args: string[],
  options: ResolveNpxOptions,
): NpxResolution | undefined {
  if (!isNpxCommand(command)) return undefined;
  const parsed = parseNpxArgs(args);
  if (!parsed) return undefined;
  const rawPackages = [parsed.packageSpec, ...parsed.extraPackages];
  const specs: PackageSpec[] = [];
  for (const raw of rawPackages) {
    const spec = pinnedSpec(raw);
    if (!spec) return undefined;
    specs.push(spec);
  }
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const nodePath = options.nodePath ?? process.execPath;
  if (shadowedByProject(cwd, specs, parsed.binName)) return undefined;
  if (parsed.binFromManifest && shadowedByGlobal(parsed.packageSpec, env, cwd, nodePath)) return undefined;
  const npmCache = options.npmCacheDir ?? npmCacheDir(env, cwd);
  if (!npmCache) return undefined;

  const now = (options.now ?? Date.now)();
  const key = `pi-mcp-actors:${JSON.stringify([path.resolve(npmCache), [...rawPackages].sort(), parsed.binFromManifest ? '' : parsed.binName])}`;
  const cached = readCachedResolution(options.cacheFile, key, now, specs[0]!);
  const resolved = cached ?? resolveFromNpmCache(npmCache, rawPackages, specs, parsed);
  if (!resolved) return undefined;
  if (!cached) saveResolution(options.cacheFile, key, resolved, now);
  return resolved.isJs
    ? {
        command: nodePath,
        args: [...resolved.nodeArgs, resolved.resolvedBin, ...parsed.rest],
        via: 'direct-node',
      }
    : { command: resolved.resolvedBin, args: [...parsed.rest], via: 'direct-bin' };
}

function resolveFromNpmCache(
  npmCache: string,
  rawPackages: string[],
  specs: PackageSpec[],
  parsed: ParsedNpxArgs,
): Resolved | undefined {
  const installDir = findInstallDir(path.join(npmCache, '_npx'), rawPackages);
  if (!installDir) return undefined;
  const nodeModules = path.join(installDir, 'node_modules');
  const installed: Array<{ dir: string; manifest: Manifest }> = [];
  for (const spec of specs) {
    const dir = path.join(nodeModules, ...spec.name.split('/'));
    const manifest = readJson(path.join(dir, 'package.json'));
    if (!isRecord(manifest) || manifest.name !== spec.name) return undefined;
    if (spec.exactVersion !== undefined && manifest.version !== spec.exactVersion) return undefined;
    installed.push({ dir, manifest });
  }
  const target = parsed.binFromManifest
    ? defaultBinTarget(installed[0]!)
    : namedBinTarget(installed, parsed.binName, nodeModules);
  if (!target) return undefined;
  const real = realFile(target);
  if (!real || !isInside(real, nodeModules)) return undefined;
  const kind = classifyExecutable(real);
  if (!kind) return undefined;
  const version = installed[0]!.manifest.version;
  return { resolvedBin: real, ...kind, ...(typeof version === 'string' ? { packageVersion: version } : {}) };
}

/** The hashed directory npm would use, or (other npm versions) one whose package.json lists the same specs. */
function findInstallDir(npxRoot: string, rawPackages: string[]): string | undefined {
  const hashed = path.join(npxRoot, npxInstallDirName(rawPackages));
  if (installedFor(hashed, rawPackages)) return hashed;
  let names: string[];
  try {
    names = fs.readdirSync(npxRoot);
  } catch {
    return undefined;
  }
  for (const name of names.slice(0, 2000)) {
    const dir = path.join(npxRoot, name);
    if (dir !== hashed && installedFor(dir, rawPackages)) return dir;
  }
  return undefined;
}

function installedFor(dir: string, rawPackages: string[]): boolean {
  // npm holds this lock (a directory) while it installs; the tree may be half there.
  if (fs.existsSync(path.join(dir, 'concurrency.lock'))) return false;
  const manifest = readJson(path.join(dir, 'package.json'));
  if (!isRecord(manifest) || !isRecord(manifest._npx)) return false;
  const listed = manifest._npx.packages;
  if (!Array.isArray(listed) || listed.length !== rawPackages.length) return false;
  const wanted = new Set(rawPackages);
  return listed.every((p) => typeof p === 'string' && wanted.has(p));
}

type Manifest = Record<string, unknown>;

/** npm's rule: the only bin (or several names for one file), else the bin named like the package. */
function defaultBinTarget({ dir, manifest }: { dir: string; manifest: Manifest }): string | undefined {
  const bins = binEntries(manifest);
  if (!bins) return undefined;
  const files = new Set(Object.values(bins));
  const rel = files.size === 1 ? [...files][0] : bins[unscoped(String(manifest.name))];
  return rel === undefined ? undefined : safeJoin(dir, rel);
}

function namedBinTarget(
  installed: Array<{ dir: string; manifest: Manifest }>,
  binName: string,
  nodeModules: string,
): string | undefined {
  for (const { dir, manifest } of installed) {
    const rel = binEntries(manifest)?.[binName];
    if (rel !== undefined) return safeJoin(dir, rel);
  }
  // A bin of a dependency that npm linked into the install's .bin (POSIX symlinks only).
  if (process.platform === 'win32') return undefined;
  const link = path.join(nodeModules, '.bin', binName);
  return fs.existsSync(link) ? link : undefined;
}

/** The `bin` field as npm normalizes it: a string means one bin named after the package. */
function binEntries(manifest: Manifest): Record<string, string> | undefined {
  const bin = manifest.bin;
  const name = typeof manifest.name === 'string' ? manifest.name : undefined;
  if (typeof bin === 'string') return name ? { [unscoped(name)]: bin } : undefined;
  if (!isRecord(bin)) return undefined;
  const entries: Record<string, string> = {};
  for (const [key, value] of Object.entries(bin)) {
    if (typeof value === 'string') entries[path.basename(key)] = value;
  }
  return Object.keys(entries).length > 0 ? entries : undefined;
}

function safeJoin(dir: string, rel: string): string | undefined {
  const target = path.resolve(dir, rel);
  return isInside(target, dir) ? target : undefined;
}

function isInside(file: string, dir: string): boolean {
  const relative = path.relative(dir, file);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}

function realFile(file: string): string | undefined {
  try {
    const real = fs.realpathSync(file);
    return fs.statSync(real).isFile() ? real : undefined;
  } catch {
    return undefined;
  }
}

const JS_EXTENSIONS = new Set(['.js', '.mjs', '.cjs']);
const NODE_NAMES = new Set(['node', 'nodejs', 'node.exe']);

/** How to run a file: node (with the shebang's node flags) or the file itself. Undefined when unsure. */
export function classifyExecutable(file: string): { isJs: boolean; nodeArgs: string[] } | undefined {
  const head = readHead(file, 512);
  if (head === undefined) return undefined;
  if (head.startsWith('#!')) {
    const line = head.slice(2).split('\n')[0]!.replace(/\r$/, '').trim();
    const words = line.split(/\s+/).filter(Boolean);
    let interpreter = words.shift();
    if (interpreter !== undefined && path.basename(interpreter) === 'env') {
      if (words[0] === '-S') words.shift();
      if (words[0] === undefined || words[0].startsWith('-') || words[0].includes('=')) return undefined;
      interpreter = words.shift();
    }
    if (interpreter === undefined) return undefined;
    if (NODE_NAMES.has(path.basename(interpreter))) return { isJs: true, nodeArgs: words };
    return isExecutable(file) ? { isJs: false, nodeArgs: [] } : undefined;
  }
  if (JS_EXTENSIONS.has(path.extname(file).toLowerCase())) return { isJs: true, nodeArgs: [] };
  const native =
    head.startsWith('\x7fELF') ||
    ['cffaedfe', 'cefaedfe', 'feedfacf', 'feedface', 'cafebabe'].includes(
      Buffer.from(head.slice(0, 4), 'latin1').toString('hex'),
    );
  return native && isExecutable(file) ? { isJs: false, nodeArgs: [] } : undefined;
}

function readHead(file: string, bytes: number): string | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r');
    const buffer = Buffer.alloc(bytes);
    const read = fs.readSync(fd, buffer, 0, bytes, 0);
    return buffer.subarray(0, read).toString('latin1');
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

function isExecutable(file: string): boolean {
  if (process.platform === 'win32') return false;
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** npx runs a project's own copy (walking up from cwd) before anything in its cache. */
function shadowedByProject(cwd: string, specs: PackageSpec[], binName: string): boolean {
  let dir = path.resolve(cwd);
  for (;;) {
    const own = readJson(path.join(dir, 'package.json'));
    if (isRecord(own) && (specs.some((spec) => spec.name === own.name) || binEntries(own)?.[binName]))
      return true;
    const nodeModules = path.join(dir, 'node_modules');
    if (fs.existsSync(nodeModules)) {
      if (fs.existsSync(path.join(nodeModules, '.bin', binName))) return true;
      if (
        specs.some((spec) => fs.existsSync(path.join(nodeModules, ...spec.name.split('/'), 'package.json')))
      ) {
        return true;
      }
    }
    const parent = path.dirname(dir);
    if (parent === dir) return false;
    dir = parent;
  }
}

/** Without `-p`, npx runs a global binary named like its first argument if there is one. */
function shadowedByGlobal(
  firstArg: string,
  env: Record<string, string | undefined>,
  cwd: string,
  nodePath: string,
) {
  const prefix =
    envConfig(env, 'prefix') ??
    npmrcValue(env, cwd, 'prefix') ??
    (process.platform === 'win32' ? path.dirname(nodePath) : path.dirname(path.dirname(nodePath)));
  if (!prefix) return true;
  const binDir = process.platform === 'win32' ? prefix : path.join(prefix, 'bin');
  return fs.existsSync(path.join(binDir, firstArg));
}

function npmCacheDir(env: Record<string, string | undefined>, cwd: string): string | undefined {
  const configured = envConfig(env, 'cache') ?? npmrcValue(env, cwd, 'cache');
  if (configured !== undefined) return configured || undefined;
  if (process.platform === 'win32') {
    const local = env.LOCALAPPDATA;
    return local ? path.join(local, 'npm-cache') : undefined;
  }
  const home = env.HOME ?? homedir();
  return home ? path.join(home, '.npm') : undefined;
}

/** `npm_config_<key>` in any letter case, as npm reads it. */
function envConfig(env: Record<string, string | undefined>, key: string): string | undefined {
  const wanted = `npm_config_${key}`;
  for (const [name, value] of Object.entries(env)) {
    if (name.toLowerCase() === wanted && value) return value;
  }
  return undefined;
}

/**
 * A key from the npmrc files npm would read (project, user, global), first found wins. A value we
 * cannot expand with certainty (`${VAR}`) yields '' so the caller falls back.
 */
function npmrcValue(env: Record<string, string | undefined>, cwd: string, key: string): string | undefined {
  const home = env.HOME ?? homedir();
  const files = [
    projectNpmrc(cwd),
    envConfig(env, 'userconfig') ?? (home ? path.join(home, '.npmrc') : undefined),
    envConfig(env, 'globalconfig'),
  ];
  for (const file of files) {
    if (!file) continue;
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split(/\r?\n/)) {
      const match = /^\s*([\w-]+)\s*=\s*(.*?)\s*$/.exec(line);
      if (!match || match[1] !== key) continue;
      const value = match[2]!.replace(/^"(.*)"$/, '$1');
      if (value.includes('${')) return '';
      if (value.startsWith('~/') && home) return path.join(home, value.slice(2));
      return path.resolve(path.dirname(file), value);
    }
  }
  return undefined;
}

/** npm's project config lives at the nearest ancestor with a package.json or node_modules. */
function projectNpmrc(cwd: string): string | undefined {
  let dir = path.resolve(cwd);
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json')) || fs.existsSync(path.join(dir, 'node_modules'))) {
      return path.join(dir, '.npmrc');
    }
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

// The resolution cache shares its file name and shape with pi-mcp-adapter
// (`{ version: 1, entries: { key: { resolvedBin, resolvedAt, packageVersion?, isJs } } }`); our keys
// are prefixed so neither tool reads the other's entries, and foreign entries are kept on write.

const NPX_CACHE_VERSION = 1;
const OWN_KEY_PREFIX = 'pi-mcp-actors:';

interface StoredResolution {
  resolvedBin: string;
  resolvedAt: number;
  packageVersion?: string;
  isJs: boolean;
  nodeArgs?: string[];
}

function readCachedResolution(
  file: string,
  key: string,
  now: number,
  first: PackageSpec,
): Resolved | undefined {
  const entry = readNpxCacheEntries(file)?.[key];
  if (!isRecord(entry)) return undefined;
  const { resolvedBin, resolvedAt, packageVersion, isJs, nodeArgs } = entry;
  if (typeof resolvedBin !== 'string' || typeof resolvedAt !== 'number' || typeof isJs !== 'boolean')
    return undefined;
  if (now - resolvedAt >= NPX_RESOLUTION_TTL_MS || now < resolvedAt) return undefined;
  if (first.exactVersion !== undefined && packageVersion !== first.exactVersion) return undefined;
  if (!realFile(resolvedBin)) return undefined;
  const args = Array.isArray(nodeArgs) ? nodeArgs.filter((a): a is string => typeof a === 'string') : [];
  return {
    resolvedBin,
    isJs,
    nodeArgs: args,
    ...(typeof packageVersion === 'string' ? { packageVersion } : {}),
  };
}

function readNpxCacheEntries(file: string): Record<string, unknown> | undefined {
  const document = readJson(file);
  if (!isRecord(document) || document.version !== NPX_CACHE_VERSION || !isRecord(document.entries))
    return undefined;
  return document.entries;
}

function saveResolution(file: string, key: string, resolved: Resolved, now: number): void {
  try {
    const entries = Object.create(null) as Record<string, unknown>;
    for (const [name, value] of Object.entries(readNpxCacheEntries(file) ?? {})) {
      const expired =
        name.startsWith(OWN_KEY_PREFIX) &&
        (!isRecord(value) ||
          typeof value.resolvedAt !== 'number' ||
          now - value.resolvedAt >= NPX_RESOLUTION_TTL_MS);
      if (!expired) entries[name] = value;
    }
    const stored: StoredResolution = {
      resolvedBin: resolved.resolvedBin,
      resolvedAt: now,
      isJs: resolved.isJs,
    };
    if (resolved.packageVersion !== undefined) stored.packageVersion = resolved.packageVersion;
    if (resolved.nodeArgs.length > 0) stored.nodeArgs = resolved.nodeArgs;
    entries[key] = stored;
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      fs.writeFileSync(temp, JSON.stringify({ version: NPX_CACHE_VERSION, entries }), { flag: 'wx' });
      fs.renameSync(temp, file);
    } catch {
      fs.rmSync(temp, { force: true });
    }
  } catch {
    // The resolution cache is an optimisation; losing an entry costs one more lookup.
  }
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
