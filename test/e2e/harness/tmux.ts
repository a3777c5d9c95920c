// The real Pi in its interactive terminal UI, inside tmux (its own server socket per run): type, press
// keys, read the screen, wait for text on it. Stopped by pid: Pi first (it closes its servers), then
// the tmux server.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { isAbsolute, resolve } from 'node:path';
import { node22Path, piCliPath, repoRoot } from '../../../scripts/pi-paths.mjs';
import { FAKE_MODEL, FAKE_PROVIDER } from './agent-dir.ts';
import { isRunning } from './processes.ts';
import type { PiOptions } from './run-pi.ts';

export interface TmuxPiOptions extends Omit<PiOptions, 'timeoutMs'> {
  columns?: number;
  rows?: number;
}

export interface TmuxPi {
  /** Pi's pid (the pane's process). */
  readonly pid: number;
  /** The visible screen, one string, lines joined with `\n` (trailing spaces trimmed). */
  screen(): string;
  /** Polls the screen until `test` passes; rejects with the last screen after `timeoutMs`. */
  waitForScreen(test: RegExp | ((screen: string) => boolean), opts?: { timeoutMs?: number }): Promise<string>;
  /** Types text literally (no key names). */
  type(text: string): void;
  /** tmux key names: `Enter`, `Escape`, `Up`, `Down`, `r`, … */
  press(...keys: string[]): void;
  resize(columns: number, rows: number): void;
  /** The pane's title (what an OSC 0/2 sequence would change) and tmux's paste buffers (OSC 52's target). */
  terminalState(): { title: string; buffers: string };
  /** SIGTERM to Pi, wait for it to exit, then end the tmux server; SIGKILL after `timeoutMs`. */
  stop(opts?: { timeoutMs?: number }): Promise<void>;
}

const POLL_MS = 100;
const DEFAULT_WAIT_MS = 20_000;

function untilGone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolvePromise) => {
    const check = () => {
      if (!isRunning(pid)) return resolvePromise(true);
      if (Date.now() > deadline) return resolvePromise(false);
      setTimeout(check, 50);
    };
    check();
  });
}

function killQuietly(pid: number, signal: NodeJS.Signals) {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

export async function startPiInTmux(opts: TmuxPiOptions): Promise<TmuxPi> {
  const socket = `pi-e2e-${process.pid}-${randomBytes(4).toString('hex')}`;
  const tmux = (...args: string[]) => {
    try {
      return execFileSync('tmux', ['-L', socket, ...args], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new Error('tmux is not installed: the TUI tests need it (Debian: apt-get install tmux)');
      }
      throw error;
    }
  };
  const args = ['--no-session', '--provider', FAKE_PROVIDER, '--model', FAKE_MODEL];
  for (const ext of opts.extensions ?? []) args.push('-e', isAbsolute(ext) ? ext : resolve(repoRoot, ext));
  args.push(...(opts.args ?? []));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    TERM: 'tmux-256color',
    LANG: process.env.LANG ?? 'C.UTF-8',
    ...opts.dir.env,
    ...opts.env,
  };
  tmux(
    '-f',
    '/dev/null',
    'new-session',
    '-d',
    '-s',
    'pi',
    '-x',
    String(opts.columns ?? 80),
    '-y',
    String(opts.rows ?? 40),
    '-c',
    opts.dir.projectDir,
    'env',
    '-i',
    ...Object.entries(env).map(([k, v]) => `${k}=${v}`),
    node22Path,
    piCliPath,
    ...args,
  );
  // An OSC 52 clipboard write from the app lands in tmux's paste buffers, where a test can see it.
  tmux('set-option', '-g', 'set-clipboard', 'on');
  const serverPid = Number(tmux('display-message', '-p', '-t', 'pi', '#{pid}').trim());
  const pid = Number(tmux('display-message', '-p', '-t', 'pi', '#{pane_pid}').trim());

  const screen = () =>
    tmux('capture-pane', '-p', '-t', 'pi')
      .split('\n')
      .map((l) => l.trimEnd())
      .join('\n')
      .trimEnd();

  return {
    pid,
    screen,
    waitForScreen(test, { timeoutMs = DEFAULT_WAIT_MS } = {}) {
      const passes = typeof test === 'function' ? test : (s: string) => test.test(s);
      const deadline = Date.now() + timeoutMs;
      return new Promise((resolvePromise, reject) => {
        const check = () => {
          let shown = '';
          try {
            shown = screen();
          } catch (error) {
            return reject(new Error(`tmux capture failed (did Pi exit?): ${String(error)}`));
          }
          if (passes(shown)) return resolvePromise(shown);
          if (Date.now() > deadline) {
            return reject(
              new Error(`screen never matched ${String(test)} in ${timeoutMs} ms; last screen:\n${shown}`),
            );
          }
          setTimeout(check, POLL_MS);
        };
        check();
      });
    },
    type: (text) => void tmux('send-keys', '-t', 'pi', '-l', text),
    press: (...keys) => void tmux('send-keys', '-t', 'pi', ...keys),
    terminalState: () => ({
      title: tmux('display-message', '-p', '-t', 'pi', '#{pane_title}').trim(),
      buffers: tmux('list-buffers', '-F', '#{buffer_sample}'),
    }),
    resize: (columns, rows) =>
      void tmux('resize-window', '-t', 'pi', '-x', String(columns), '-y', String(rows)),
    async stop({ timeoutMs = 15_000 } = {}) {
      killQuietly(pid, 'SIGTERM');
      if (!(await untilGone(pid, timeoutMs))) killQuietly(pid, 'SIGKILL');
      killQuietly(serverPid, 'SIGTERM');
      if (!(await untilGone(serverPid, 5_000))) killQuietly(serverPid, 'SIGKILL');
    },
  };
}

/** The panel's own lines: between its top rule and its key hints ('' when it is not shown). */
export function panelOf(screen: string): string {
  const lines = screen.split('\n');
  const end = lines.findLastIndex((l) => /esc (close|back)$/.test(l));
  if (end < 0) return '';
  const rules = lines.flatMap((l, i) => (i < end && /^─+$/.test(l) ? [i] : []));
  const top = rules.at(-2);
  return top === undefined ? '' : lines.slice(top + 1, end + 1).join('\n');
}
