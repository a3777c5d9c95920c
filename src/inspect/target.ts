// Where inspection events go: a WebSocket on loopback or a JSONL file. Inspection events describe the
// user's MCP servers, so a WebSocket target anywhere but this machine is refused outright.

import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export type InspectTarget = { kind: 'websocket'; url: string } | { kind: 'jsonl'; file: string };

export type ParsedInspectTarget = { ok: true; target: InspectTarget } | { ok: false; error: string };

/** The environment variable that turns inspection on. */
export const INSPECT_ENV = 'PI_MCP_INSPECT';
/** The Pi flag (without dashes) that turns inspection on; it wins over the environment variable. */
export const INSPECT_FLAG = 'mcp-inspect';

const USAGE =
  'Use ws://127.0.0.1:<port>/<path> (for example the URL printed by `pi-mcp-actors inspect`) or a file path for JSONL.';

/** 127.0.0.0/8, ::1 and localhost; the only hosts inspection events may be sent to. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host === '::1' || host === '0:0:0:0:0:0:0:1') return true;
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!v4) return false;
  const octets = v4.slice(1).map(Number);
  return octets.every((n) => n <= 255) && octets[0] === 127;
}

export function parseInspectTarget(value: string): ParsedInspectTarget {
  const text = value.trim();
  if (text === '') return { ok: false, error: `The inspect target is empty. ${USAGE}` };

  if (/^file:/i.test(text)) return fileTarget(text);

  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(text)?.[1]?.toLowerCase();
  if (scheme === undefined) return { ok: true, target: { kind: 'jsonl', file: resolve(expandHome(text)) } };
  if (scheme !== 'ws' && scheme !== 'wss') {
    return {
      ok: false,
      error: `Unsupported inspect target "${text}": only ws:// URLs and file paths work. ${USAGE}`,
    };
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, error: `The inspect target "${text}" is not a valid URL. ${USAGE}` };
  }
  if (!isLoopbackHost(url.hostname)) {
    return {
      ok: false,
      error:
        `Refusing to send inspection events to "${url.hostname}": only loopback addresses ` +
        `(127.0.0.0/8, ::1, localhost) are allowed, because the events describe your MCP servers. ${USAGE}`,
    };
  }
  if (url.username || url.password) {
    return { ok: false, error: `The inspect URL must not carry a user name or password. ${USAGE}` };
  }
  return { ok: true, target: { kind: 'websocket', url: url.toString() } };
}

export type InspectSetting =
  | { ok: true; target: InspectTarget | undefined; source: 'flag' | 'env' | undefined }
  | { ok: false; error: string; source: 'flag' | 'env' };

const OFF = new Set(['', '0', 'false', 'off', 'no']);
const ON_WITHOUT_TARGET = new Set(['1', 'true', 'on', 'yes']);

/**
 * Reads the inspection setting: the `--mcp-inspect <target>` flag if given, else `PI_MCP_INSPECT`.
 * Off when neither is set (or set to 0/false/off). A bare "on" is an error: the target must be named.
 */
export function inspectTargetFrom(
  env: Record<string, string | undefined>,
  flagValue: string | boolean | undefined,
): InspectSetting {
  if (flagValue !== undefined && flagValue !== false) {
    if (flagValue === true) {
      return { ok: false, source: 'flag', error: `--${INSPECT_FLAG} needs a target. ${USAGE}` };
    }
    return fromText(flagValue, 'flag', `--${INSPECT_FLAG}`);
  }
  const fromEnv = env[INSPECT_ENV];
  if (fromEnv !== undefined) return fromText(fromEnv, 'env', INSPECT_ENV);
  return { ok: true, target: undefined, source: undefined };
}

function fromText(value: string, source: 'flag' | 'env', label: string): InspectSetting {
  const text = value.trim();
  if (OFF.has(text.toLowerCase())) return { ok: true, target: undefined, source };
  if (ON_WITHOUT_TARGET.has(text.toLowerCase())) {
    return { ok: false, source, error: `${label}=${text} does not say where to send events. ${USAGE}` };
  }
  const parsed = parseInspectTarget(text);
  if (!parsed.ok) return { ok: false, source, error: `${label}: ${parsed.error}` };
  return { ok: true, target: parsed.target, source };
}

function fileTarget(text: string): ParsedInspectTarget {
  let file: string;
  try {
    file = text.startsWith('file://') ? fileURLToPath(text) : text.slice('file:'.length);
  } catch (error) {
    return {
      ok: false,
      error: `The inspect target "${text}" is not a usable file URL: ${(error as Error).message}`,
    };
  }
  if (file === '') return { ok: false, error: `The inspect target "${text}" names no file. ${USAGE}` };
  return { ok: true, target: { kind: 'jsonl', file: isAbsolute(file) ? file : resolve(expandHome(file)) } };
}

function expandHome(path: string): string {
  const home = process.env.HOME ?? process.env.USERPROFILE;
  if (home && (path === '~' || path.startsWith('~/'))) return `${home}${path.slice(1)}`;
  return path;
}
