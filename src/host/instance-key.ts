// What makes two sessions' servers the same instance: everything that changes what runs (the resolved
// definition with its env values, the roots and capabilities it is given, and for `project` the
// project folder), hashed. Fields that only shape the session's own view (its name, where it was
// defined, tool exposure, idle timing) are left out, so two sessions naming one server differently
// still share it.

import { createHash } from 'node:crypto';
import type { ServerDefinition } from '../config/types.ts';
import type { InstanceRequest } from './protocol.ts';

const VIEW_ONLY_FIELDS: ReadonlySet<keyof ServerDefinition> = new Set([
  'name',
  'source',
  'description',
  'configHash',
  'lifecycle',
  'idleTimeoutMs',
  'healthCheckMs',
  'exposure',
  'toolExposure',
  'directTools',
  'approveTools',
  'searchKeywords',
  'toolPrefix',
  'includeTools',
  'excludeTools',
  'requestTimeoutMs',
]);

/**
 * Variables that differ from one terminal (window, tab, tmux pane, ssh login) of one user to the next
 * and change nothing a server does over its pipes: left out of the key, so sessions in two terminals
 * share one copy (it runs with the values of the session that started it). docs/shared-host.md lists
 * them with the reason for each, and the ones kept on purpose (DISPLAY, SSH_AUTH_SOCK…).
 */
const PER_TERMINAL = new Set([
  'TERM',
  'COLORTERM',
  'TERM_PROGRAM',
  'TERM_PROGRAM_VERSION',
  'TERM_SESSION_ID',
  'LC_TERMINAL',
  'LC_TERMINAL_VERSION',
  'COLUMNS',
  'LINES',
  'TMUX',
  'TMUX_PANE',
  'STY',
  'WINDOW',
  'WINDOWID',
  'WT_SESSION',
  'WT_PROFILE_ID',
  'KITTY_WINDOW_ID',
  'KITTY_PID',
  'WEZTERM_PANE',
  'ALACRITTY_WINDOW_ID',
  'GNOME_TERMINAL_SCREEN',
  'VTE_VERSION',
  'TERMINATOR_UUID',
  'TILIX_ID',
  'TERMINFO',
  'TERM_FEATURES',
  'COLORFGBG',
  'TERMINAL_EMULATOR',
  '__CFBundleIdentifier',
  'INSIDE_EMACS',
  'NVIM',
  'NVIM_LISTEN_ADDRESS',
  'VIM_TERMINAL',
  'ZELLIJ',
  'SSH_TTY',
  'SSH_CLIENT',
  'SSH_CONNECTION',
  'XDG_SESSION_ID',
  'SECURITYSESSIONID',
  'GPG_TTY',
  'P9K_TTY',
  '_P9K_TTY',
  'DESKTOP_STARTUP_ID',
  'XDG_ACTIVATION_TOKEN',
  'SHLVL',
  'PWD',
  'OLDPWD',
  '_',
]);
const PER_TERMINAL_PREFIXES = [
  'VSCODE_',
  'ITERM_',
  'KONSOLE_',
  'ALACRITTY_',
  'WEZTERM_',
  'KITTY_',
  'GHOSTTY_',
  'TMUX_',
  'ZELLIJ_',
  'STARSHIP_',
  'GIO_LAUNCHED_DESKTOP_FILE',
];

/** True for a variable that differs per terminal and is not part of an instance's key. */
export function perTerminal(name: string): boolean {
  return PER_TERMINAL.has(name) || PER_TERMINAL_PREFIXES.some((prefix) => name.startsWith(prefix));
}

/** What an instance's key is made of, part by part (./key-difference.ts names the parts two copies differ in). */
export function keyMaterial(request: InstanceRequest): Record<string, unknown> {
  const runs: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(request.definition)) {
    if (!VIEW_ONLY_FIELDS.has(field as keyof ServerDefinition)) runs[field] = value;
  }
  const env = request.definition.env as Record<string, string> | undefined;
  if (env && typeof env === 'object')
    runs.env = Object.fromEntries(Object.entries(env).filter(([name]) => !perTerminal(name)));
  return {
    runs,
    share: request.share,
    project: request.share === 'project' ? request.project : undefined,
    roots: request.roots,
    answers: request.answers,
  };
}

export function instanceKey(request: InstanceRequest): string {
  return createHash('sha256')
    .update(stableJson(keyMaterial(request)))
    .digest('hex')
    .slice(0, 24);
}

/** JSON with object keys sorted, so equal values hash equally whatever order they were built in. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
