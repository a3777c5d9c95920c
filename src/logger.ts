// Leveled logger to a size-rotated file (never stdout/stderr: Pi owns the terminal). Secrets are
// removed before a line is written (the one redaction, plus fields whose names say they hold one).
// Logging never throws.

import { appendFileSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { LOG_MAX_BYTES } from './config/defaults.ts';
import { OUR_DATA, redactData, type SecretValues } from './redact/index.ts';
import { plainLine } from './terminal-text.ts';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  /** A logger whose lines carry `[parent/scope]`, writing to the same file. */
  child(scope: string): Logger;
}

export interface LoggerOptions {
  file: string;
  /** The known secrets of the runtime this log belongs to; removed from every line. */
  known: SecretValues;
  /** Lowest level written; default 'info'. */
  level?: LogLevel;
  /** Past this size the file is renamed to `<file>.1` (replacing it) and a new one begun. Default 5 MiB. */
  maxBytes?: number;
  /** Secrets beyond `known`; called per line. */
  secrets?: () => string[];
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const MAX_LINE_CHARS = 16 * 1024;

interface Sink {
  file: string;
  maxBytes: number;
  minLevel: number;
  known: SecretValues;
  secrets: () => string[];
  size: number | undefined;
  dirReady: boolean;
}

export function createLogger(options: LoggerOptions): Logger {
  const sink: Sink = {
    file: options.file,
    maxBytes: options.maxBytes !== undefined && options.maxBytes > 0 ? options.maxBytes : LOG_MAX_BYTES,
    minLevel: ORDER[options.level ?? 'info'] ?? ORDER.info,
    known: options.known,
    secrets: options.secrets ?? (() => []),
    size: undefined,
    dirReady: false,
  };
  return scoped(sink, '');
}

function scoped(sink: Sink, scope: string): Logger {
  const log = (level: LogLevel) => (msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[level] < sink.minLevel) return;
    try {
      write(sink, formatLine(sink, level, scope, msg, fields));
    } catch {
      // A log line is never worth an exception in Pi.
    }
  };
  return {
    debug: log('debug'),
    info: log('info'),
    warn: log('warn'),
    error: log('error'),
    child: (name: string) => scoped(sink, scope === '' ? String(name) : `${scope}/${String(name)}`),
  };
}

function formatLine(
  sink: Sink,
  level: LogLevel,
  scope: string,
  msg: string,
  fields: Record<string, unknown> | undefined,
): string {
  const parts = [new Date().toISOString(), level.toUpperCase().padEnd(5)];
  if (scope !== '') parts.push(`[${scope}]`);
  parts.push(oneLine(String(msg)));
  if (fields !== undefined && fields !== null && Object.keys(fields).length > 0)
    parts.push(serializeFields(fields));
  let line = parts.join(' ');
  let secrets: string[] = [];
  try {
    secrets = sink.secrets();
  } catch {
    secrets = [];
  }
  // A server's text (stderr, errors) must not drive the terminal of a `tail -f`.
  line = plainLine(sink.known.redact(line, Array.isArray(secrets) ? secrets : []));
  if (line.length > MAX_LINE_CHARS)
    line = `${line.slice(0, MAX_LINE_CHARS)} …(${line.length - MAX_LINE_CHARS} more chars)`;
  return `${line}\n`;
}

function oneLine(text: string): string {
  return text.replace(/\r?\n/g, '\\n');
}

/** Fields as JSON, hidden by the key policy (the whole line is scrubbed as text after). */
function serializeFields(fields: Record<string, unknown>): string {
  try {
    return JSON.stringify(redactData(fields, { ...OUR_DATA, text: (value) => value }));
  } catch {
    return '{"fields":"[unserializable]"}';
  }
}

function write(sink: Sink, line: string): void {
  if (!sink.dirReady) {
    mkdirSync(dirname(sink.file), { recursive: true });
    sink.dirReady = true;
  }
  const bytes = Buffer.byteLength(line);
  if (sink.size === undefined) sink.size = sizeOf(sink.file);
  if (sink.size > 0 && sink.size + bytes > sink.maxBytes) {
    // Another process may have rotated already: look before renaming.
    sink.size = sizeOf(sink.file);
    if (sink.size > 0 && sink.size + bytes > sink.maxBytes) {
      renameSync(sink.file, `${sink.file}.1`);
      sink.size = 0;
    }
  }
  appendFileSync(sink.file, line, { mode: 0o600 });
  sink.size += bytes;
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

const noop = () => {};
export const nullLogger: Logger = {
  debug: noop,
  info: noop,
  warn: noop,
  error: noop,
  child: () => nullLogger,
};
