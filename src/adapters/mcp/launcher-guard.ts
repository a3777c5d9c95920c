// Where a user's stdio server starts, so that it never runs code the project chose (issue 34). Many
// launchers read their working folder before the server's own code: `python -m` imports the folder's
// `<module>/__main__.py` first, bun preloads what the folder's bunfig.toml names, `deno run npm:x` and
// `bunx`/`pnpm exec`/`npm exec` take the folder's node_modules, yarn 1 runs the file the folder's
// .yarnrc names... A user's server (defined in the user's own config, no `cwd` of its own) whose
// launcher is in LAUNCHERS below therefore starts in a neutral folder, the user's home, with the
// project handed over as PI_PROJECT_DIR (MCP roots carry it too). A server the project defined (and the
// user allowed), or one with a `cwd` the user wrote, starts where it did. Any other user server keeps
// its folder but loses the relative entries of its PATH (`.` would find the project's `./git` first).
// docs/security.md shows this table to users; test/unit/adapters/launcher-guard.test.ts keeps the two
// in step.

import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, delimiter, isAbsolute, parse, resolve } from 'node:path';
import type { ServerDefinition } from '../../config/types.ts';

/** The env var a moved server finds its project folder in. */
export const PROJECT_DIR_VARIABLE = 'PI_PROJECT_DIR';

export interface Launcher {
  /** The commands, as docs/security.md names them. */
  label: string;
  /** The command's base name, lower case, without `.exe`/`.cmd`. */
  names: RegExp;
  /** What it would read from its working folder (docs/security.md). */
  reads: string;
  /** What we do about it (docs/security.md). */
  we: string;
  /** False: it may stay in the project (./npx-connector.ts handles npx; node with an absolute script). Default true. */
  neutral?: (args: readonly string[]) => boolean;
}

const NEUTRAL = 'starts in your home folder';

export const LAUNCHERS: readonly Launcher[] = [
  {
    label: '`python`, `python3`, `python3.N`, `pypy3`',
    names: /^(python|pypy)[\d.]*w?$/,
    reads:
      '`-m`, `-c` and stdin import the folder’s modules first (`<module>/__main__.py`); a relative script; relative `PYTHONPATH` entries',
    we: `${NEUTRAL} (any Python version; \`-P\` would also drop a script’s own folder from \`sys.path\`, in the Pythons it starts too)`,
  },
  {
    label: '`uv run`, `uvx`',
    names: /^(uv|uvx)$/,
    reads:
      'pyproject.toml, uv.toml, uv.lock, .python-version, .venv (walking up); a relative script; `uv run python -m` as Python',
    we: `${NEUTRAL} (so no project is found)`,
  },
  {
    label: '`poetry`, `pipx`, `hatch`, `pdm`',
    names: /^(poetry|pipx|hatch|pdm)$/,
    reads: 'pyproject.toml and the project’s virtual environment; a local package spec (`.`)',
    we: NEUTRAL,
  },
  {
    label: '`deno`',
    names: /^deno$/,
    reads:
      'deno.json(c) and its import map, package.json and node_modules (`deno run npm:x` runs the folder’s copy), a relative script',
    we: NEUTRAL,
  },
  {
    label: '`bun`, `bunx`, `bun x`',
    names: /^(bun|bunx)$/,
    reads:
      'bunfig.toml (`preload` runs its files before any script), package.json, node_modules/.bin (`bunx`, `bun x`)',
    we: NEUTRAL,
  },
  {
    label: '`pnpm dlx`, `pnpm exec`, `pnpx`',
    names: /^(pnpm|pnpx)$/,
    reads:
      'node_modules/.bin (`pnpm exec`), .npmrc (registry), pnpm-workspace.yaml, .pnpmfile.cjs (`pnpm dlx`)',
    we: NEUTRAL,
  },
  {
    label: '`yarn`, `yarn dlx`',
    names: /^(yarn|yarnpkg)$/,
    reads:
      '.yarnrc `yarn-path` / .yarnrc.yml `yarnPath` (runs that file instead of yarn), node_modules/.bin, package.json',
    we: NEUTRAL,
  },
  {
    label: '`npm exec`, `npm run`',
    names: /^npm$/,
    reads: 'node_modules/.bin (`npm exec`), package.json scripts (`npm run`), .npmrc',
    we: NEUTRAL,
  },
  {
    label: '`npx`',
    names: /^npx$/,
    reads: 'node_modules/.bin and package.json of the folder and its parents, .npmrc',
    we: 'resolves the package in an empty folder of ours, `<agentDir>/mcp-npx-root` (`npx --prefix`); the server runs in the project',
    neutral: () => false,
  },
  {
    label: '`node`',
    names: /^(node|nodejs)$/,
    reads:
      'a relative script, `-e`/`-p` code’s `require`s from the folder’s node_modules, a relative `--require`/`--import`/`--env-file`',
    we: `${NEUTRAL} unless the script is an absolute path with nothing relative before it`,
    neutral: (args) => !absoluteScript(args),
  },
  {
    label: '`go run`',
    names: /^go$/,
    reads: 'go.mod, go.work, vendor/, a `toolchain` line (fetches and runs another Go); `go run .`',
    we: NEUTRAL,
  },
  {
    label: '`cargo run`',
    names: /^cargo$/,
    reads: '.cargo/config.toml (runners, aliases) and Cargo.toml of the folder and its parents',
    we: NEUTRAL,
  },
  {
    label: '`ruby`, `bundle exec`, `perl`, `php`',
    names: /^(ruby|bundle|bundler|perl|php)$/,
    reads:
      'a relative script, Gemfile (`bundle exec`), version files a version manager reads (.ruby-version)',
    we: NEUTRAL,
  },
  {
    label: '`sh`, `bash`, `zsh`, `dash`, `ksh`, `fish`',
    names: /^(sh|bash|dash|zsh|ksh|fish)$/,
    reads: 'a relative script; a `-c` command line may run any launcher above',
    we: NEUTRAL,
  },
];

/** A program named by a relative path (`./server`, `bin/run`): the folder's own file. */
export const RELATIVE_PROGRAM: Launcher = {
  label: 'a relative program (`./server`)',
  names: /^$/,
  reads: 'the program itself: `./server`, `bin/run` are the folder’s files',
  we: NEUTRAL,
};

export interface Launch {
  cwd?: string;
  env: Record<string, string>;
}

/**
 * The folder and environment a stdio server starts with. `env` is the environment it would have had;
 * `home` the neutral folder; `here` the folder it would otherwise start in (this process's).
 */
export function guardLaunch(
  definition: Pick<ServerDefinition, 'command' | 'args' | 'cwd' | 'runsIn' | 'fromProject'>,
  env: Record<string, string>,
  home: string = homedir(),
  here: string = process.cwd(),
): Launch {
  const folder = definition.cwd ?? definition.runsIn;
  const asToday: Launch = folder === undefined ? { env } : { cwd: folder, env };
  if (definition.fromProject || definition.cwd !== undefined || !definition.command) return asToday;
  const safe = withoutRelativePath(env);
  const launcher = launcherOf(definition.command, definition.args);
  if (!launcher) return folder === undefined ? { env: safe } : { cwd: folder, env: safe };
  if (!(launcher.neutral ?? always)(commandArgs(definition.command, definition.args))) {
    return folder === undefined ? { env: safe } : { cwd: folder, env: safe };
  }
  const project = folder ?? here;
  const neutral = neutralFolder(home);
  return {
    cwd: neutral,
    env: project === neutral ? safe : { ...safe, [PROJECT_DIR_VARIABLE]: project },
  };
}

/**
 * PATH without its relative entries (`.`, `bin`, an empty one): looked up from the server's folder, they
 * would find the project's `./git` or `./python3` before the user's.
 */
function withoutRelativePath(env: Record<string, string>): Record<string, string> {
  const path = env.PATH;
  if (path === undefined || process.platform === 'win32') return env;
  const kept = path.split(delimiter).filter((entry) => isAbsolute(entry));
  return kept.length === path.split(delimiter).length ? env : { ...env, PATH: kept.join(delimiter) };
}

/** The home folder; the file system's root (which only root can write) if there is no home folder. */
function neutralFolder(home: string): string {
  try {
    if (statSync(home).isDirectory()) return home;
  } catch {}
  return parse(resolve(home)).root;
}

/** The row of LAUNCHERS that `command args` starts with (through `env VAR=… cmd`), if any. */
export function launcherOf(command: string, args: readonly string[]): Launcher | undefined {
  const [program] = unwrapEnv(command, args);
  if (program === undefined) return undefined;
  if (!isAbsolute(program) && /[\\/]/.test(program)) return RELATIVE_PROGRAM;
  const name = basename(program)
    .toLowerCase()
    .replace(/\.(exe|cmd|bat)$/, '');
  return LAUNCHERS.find((launcher) => launcher.names.test(name));
}

const always = () => true;

/** `env [-i] [VAR=value…] program args…` → the program and its args; otherwise as given. */
function unwrapEnv(command: string, args: readonly string[]): [string | undefined, readonly string[]] {
  if (basename(command) !== 'env') return [command, args];
  let index = 0;
  while (index < args.length && (args[index]!.startsWith('-') || args[index]!.includes('='))) index++;
  return [args[index], args.slice(index + 1)];
}

function commandArgs(command: string, args: readonly string[]): readonly string[] {
  return unwrapEnv(command, args)[1];
}

/** node: the script is an absolute path, and no option before it evaluates code or names a relative file. */
function absoluteScript(args: readonly string[]): boolean {
  for (const arg of args) {
    if (!arg.startsWith('-')) return isAbsolute(arg);
    if (/^(-e|-p|-pe|--eval|--print)(=|$)/.test(arg)) return false;
    const named = /^(?:-r|--require|--import|--loader|--experimental-loader|--env-file[\w-]*)=(.*)$/.exec(
      arg,
    );
    if (named && !isAbsolute(named[1]!)) return false;
  }
  return false;
}
