// Variable interpolation in config values:
//   ${VAR}  ${VAR:-default}  ${env:VAR}  $env:VAR  {env:VAR}   and a leading ~ in paths.
// `$${` writes a literal `${`. VS Code's ${workspaceFolder} and ${userHome} are understood; any
// other ${…} (e.g. VS Code's ${input:…}) is refused, and so is a variable that is not set: the caller
// skips the server rather than start it with an empty or literal value.

export interface InterpolationContext {
  env: Record<string, string | undefined>;
  homeDir: string;
  /** The project directory, for ${workspaceFolder}. */
  cwd: string;
}

export type InterpolationProblem =
  | { kind: 'missing'; variable: string }
  | { kind: 'unsupported'; expression: string };

/** `variables`: the environment variables whose values went into `value` (the redaction treats some as secrets). */
export type Interpolated =
  | { ok: true; value: string; variables: Array<{ name: string; value: string }> }
  | { ok: false; problems: InterpolationProblem[] };

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const NAME_PREFIX = /^[A-Za-z_][A-Za-z0-9_]*/;

export function interpolate(text: string, context: InterpolationContext, expandHome = false): Interpolated {
  const problems: InterpolationProblem[] = [];
  const variables: Array<{ name: string; value: string }> = [];
  let out = '';
  let i = 0;
  if (expandHome && (text === '~' || text.startsWith('~/') || text.startsWith('~\\'))) {
    out = context.homeDir;
    i = 1;
  }
  while (i < text.length) {
    const rest = text.slice(i);
    if (rest.startsWith('$${')) {
      out += '${';
      i += 3;
    } else if (rest.startsWith('${')) {
      const close = rest.indexOf('}');
      if (close < 0) {
        problems.push({ kind: 'unsupported', expression: `\${ without a closing }` });
        break;
      }
      const expression = rest.slice(2, close);
      const value = braced(expression, context, problems, variables);
      if (value !== undefined) out += value;
      i += close + 1;
    } else if (rest.startsWith('$env:')) {
      const name = NAME_PREFIX.exec(rest.slice(5))?.[0];
      if (name === undefined) {
        out += '$env:';
        i += 5;
      } else {
        out += lookup(name, context, problems, variables) ?? '';
        i += 5 + name.length;
      }
    } else if (rest.startsWith('{env:')) {
      const close = rest.indexOf('}');
      const name = close < 0 ? undefined : rest.slice(5, close);
      if (name === undefined || !NAME.test(name)) {
        out += '{';
        i += 1;
      } else {
        out += lookup(name, context, problems, variables) ?? '';
        i += close + 1;
      }
    } else {
      out += text[i];
      i += 1;
    }
  }
  return problems.length === 0 ? { ok: true, value: out, variables } : { ok: false, problems };
}

type Used = Array<{ name: string; value: string }>;

function braced(
  expression: string,
  context: InterpolationContext,
  problems: InterpolationProblem[],
  used: Used,
) {
  if (NAME.test(expression)) {
    const value = context.env[expression];
    if (value !== undefined) {
      used.push({ name: expression, value });
      return value;
    }
    if (expression === 'workspaceFolder') return context.cwd;
    if (expression === 'userHome') return context.homeDir;
    problems.push({ kind: 'missing', variable: expression });
    return undefined;
  }
  const withDefault = /^([A-Za-z_][A-Za-z0-9_]*):-(.*)$/s.exec(expression);
  if (withDefault !== null) {
    const value = context.env[withDefault[1]!];
    if (value === undefined || value === '') return withDefault[2]!;
    used.push({ name: withDefault[1]!, value });
    return value;
  }
  const vscodeEnv = /^env:([A-Za-z_][A-Za-z0-9_]*)$/.exec(expression);
  if (vscodeEnv !== null) return lookup(vscodeEnv[1]!, context, problems, used);
  problems.push({ kind: 'unsupported', expression: `\${${shown(expression)}}` });
  return undefined;
}

function lookup(name: string, context: InterpolationContext, problems: InterpolationProblem[], used: Used) {
  const value = context.env[name];
  if (value === undefined) problems.push({ kind: 'missing', variable: name });
  else used.push({ name, value });
  return value;
}

/** Echo an expression only when it looks like one (it may sit inside a secret). */
function shown(expression: string): string {
  return /^[A-Za-z_][A-Za-z0-9_.:-]{0,40}$/.test(expression) ? expression : '…';
}

/** Expand a leading `~` only (for paths that take no variables, e.g. PI_CODING_AGENT_DIR). */
export function expandHome(path: string, homeDir: string): string {
  if (path === '~') return homeDir;
  if (path.startsWith('~/') || path.startsWith('~\\')) return homeDir + path.slice(1);
  return path;
}
