// Server entries of Codex (`[mcp_servers.<name>]`) and OpenCode (`"mcp": {…}`) use other key names;
// they are translated to the native keys here, remembering which original key each came from so
// diagnostics point at what the user wrote. Native entries pass through unchanged.

import { isPlainObject, setOwn } from '../plain-object.ts';
import type { DiagnosticCode } from './diagnostics.ts';
import { didYouMean } from './suggest.ts';
import type { DiagnosticLevel } from './types.ts';

export type Dialect = 'native' | 'codex' | 'opencode';

export interface DialectNote {
  level: DiagnosticLevel;
  code: DiagnosticCode;
  /** The original key the note is about. */
  key: string;
  message: string;
  fix?: string;
}

export interface Translated {
  entry: Record<string, unknown>;
  /** native key → the key the user wrote. */
  origin: Record<string, string>;
  /** Keys the dialect does not know (native dialect: left for the schema to judge). */
  unknownKeys: string[];
  /** Problems that make the entry invalid. */
  errors: DialectNote[];
  notes: DialectNote[];
}

interface TranslationContext {
  env: Record<string, string | undefined>;
}

type Put = (nativeKey: string, value: unknown) => void;
type Rule = {
  /** For docs/config.md. */
  native: string;
  apply: (
    value: unknown,
    put: Put,
    fail: (message: string, fix?: string) => void,
    ctx: TranslationContext,
  ) => void;
};

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MAX_SECONDS = Math.floor(2_147_483_647 / 1000);

function same(nativeKey: string): Rule {
  return { native: `\`${nativeKey}\``, apply: (value, put) => put(nativeKey, value) };
}

function seconds(nativeKey: string): Rule {
  return {
    native: `\`${nativeKey}\` (× 1000)`,
    apply: (value, put, fail) => {
      if (typeof value === 'number' && value > 0 && value <= MAX_SECONDS)
        put(nativeKey, Math.round(value * 1000));
      else fail(`must be a number of seconds > 0 and ≤ ${MAX_SECONDS}`);
    },
  };
}

export const CODEX_RULES: Record<string, Rule> = {
  command: same('command'),
  args: same('args'),
  env: same('env'),
  cwd: same('cwd'),
  url: same('url'),
  enabled: same('enabled'),
  bearer_token_env_var: same('bearerTokenEnv'),
  bearer_token: same('bearerToken'),
  http_headers: same('headers'),
  env_http_headers: {
    native: '`headers`, each value read from the named variable',
    apply: (value, put, fail) => {
      if (
        !isPlainObject(value) ||
        !Object.values(value).every((v) => typeof v === 'string' && ENV_NAME.test(v))
      ) {
        fail('must map header names to environment variable names');
        return;
      }
      for (const [header, variable] of Object.entries(value)) put(`headers.${header}`, `\${${variable}}`);
    },
  },
  env_vars: {
    native: '`env` (forwarded when set)',
    apply: (value, put, fail, ctx) => {
      if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' && ENV_NAME.test(v))) {
        fail('must be a list of environment variable names');
        return;
      }
      for (const variable of value as string[]) {
        if (ctx.env[variable] !== undefined) put(`env.${variable}`, `\${${variable}}`);
      }
    },
  },
  startup_timeout_sec: seconds('startupTimeoutMs'),
  startup_timeout_ms: same('startupTimeoutMs'),
  tool_timeout_sec: seconds('requestTimeoutMs'),
  enabled_tools: same('includeTools'),
  disabled_tools: same('excludeTools'),
};

export const OPENCODE_RULES: Record<string, Rule> = {
  type: {
    native: '`type` (`local` → stdio, `remote` → http)',
    apply: (value, put, fail) => {
      if (value === 'local') put('type', 'stdio');
      else if (value === 'remote') put('type', 'http');
      else {
        const fix = typeof value === 'string' ? didYouMean(value, ['local', 'remote']) : undefined;
        fail('must be "local" or "remote"', fix);
      }
    },
  },
  command: {
    native: '`command` + `args`',
    apply: (value, put, fail) => {
      if (typeof value === 'string' && value !== '') put('command', value);
      else if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string')) {
        put('command', value[0]);
        put('args', value.slice(1));
      } else fail('must be a non-empty list of strings: ["npx", "-y", "package"]');
    },
  },
  environment: same('env'),
  enabled: same('enabled'),
  url: same('url'),
  headers: same('headers'),
  timeout: same('startupTimeoutMs'),
  oauth: {
    native: '`oauth` (false → `auth: false`)',
    apply: (value, put) => {
      if (value === false) put('auth', false);
      else put('oauth', value);
    },
  },
};

/** Keys other clients write that mean nothing here; noted, not warned about. */
export const FOREIGN_KEYS: Record<string, string> = {
  autoApprove: 'tool approval is not handled by this extension',
  alwaysAllow: 'tool approval is not handled by this extension',
  dev: "VS Code's development mode is not supported",
  gallery: 'VS Code gallery metadata',
  version: 'VS Code gallery metadata',
};

export function translate(
  raw: Record<string, unknown>,
  dialect: Dialect,
  ctx: TranslationContext,
): Translated {
  const result: Translated = { entry: {}, origin: {}, unknownKeys: [], errors: [], notes: [] };
  if (dialect === 'native') {
    for (const [key, value] of Object.entries(raw)) {
      setOwn(result.entry, key, value);
      result.origin[key] = key;
    }
    return result;
  }
  const rules = dialect === 'codex' ? CODEX_RULES : OPENCODE_RULES;
  for (const [key, value] of Object.entries(raw)) {
    const rule = Object.hasOwn(rules, key) ? rules[key] : undefined;
    if (rule === undefined) {
      result.unknownKeys.push(key);
      continue;
    }
    const put: Put = (nativeKey, nativeValue) => putTranslated(result, key, nativeKey, nativeValue);
    const fail = (message: string, fix?: string) =>
      result.errors.push({ level: 'error', code: 'invalid-server', key, message, ...(fix ? { fix } : {}) });
    rule.apply(value, put, fail, ctx);
  }
  return result;
}

/** `headers.X` / `env.X` add to a map; a plain key sets it. A key set twice keeps the first, with a note. */
function putTranslated(result: Translated, fromKey: string, nativeKey: string, value: unknown): void {
  const dot = nativeKey.indexOf('.');
  if (dot > 0) {
    const mapKey = nativeKey.slice(0, dot);
    const entryKey = nativeKey.slice(dot + 1);
    const existing = result.entry[mapKey];
    if (existing !== undefined && !isPlainObject(existing)) return;
    const map = existing ?? {};
    if (!Object.hasOwn(map, entryKey)) setOwn(map, entryKey, value);
    setOwn(result.entry, mapKey, map);
    result.origin[mapKey] ??= fromKey;
    return;
  }
  const existing = result.entry[nativeKey];
  if (Object.hasOwn(result.entry, nativeKey)) {
    const first = result.origin[nativeKey] ?? nativeKey;
    if (isPlainObject(existing) && isPlainObject(value) && first !== fromKey) {
      // A map filled from env_vars / env_http_headers: the explicit map's entries win.
      setOwn(result.entry, nativeKey, { ...existing, ...value });
      result.origin[nativeKey] = fromKey;
      return;
    }
    result.notes.push({
      level: 'warning',
      code: 'conflicting-keys',
      key: fromKey,
      message: `"${fromKey}" and "${first}" both set ${nativeKey}; "${first}" is used`,
      fix: 'Remove one of them.',
    });
    return;
  }
  setOwn(result.entry, nativeKey, isPlainObject(value) ? { ...value } : value);
  result.origin[nativeKey] = fromKey;
}

export function dialectKeys(dialect: Dialect): string[] {
  if (dialect === 'codex') return Object.keys(CODEX_RULES);
  if (dialect === 'opencode') return Object.keys(OPENCODE_RULES);
  return [];
}
