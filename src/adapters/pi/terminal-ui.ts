// Pi strips escape sequences from tool results, but not from what an extension shows through
// ctx.ui (notify, setStatus, dialogs), the names and descriptions it registers, or a message it sends
// as the user's. Pi is wrapped here once, for the bridge: every context Pi hands it shows only text
// that passed the one terminal sanitizer (src/terminal-text.ts), whichever module shows it — a
// server's name from a project file, a server's dialog, an error, /mcp output. Choices of a dialog are
// shown sanitized and answered as given.

import { plainLine, plainText } from '../../terminal-text.ts';
import type { PiCommandDefinition, PiContext, PiHost, PiToolDefinition, PiUi } from './pi-types.ts';
import type { PiNamespace } from './tool-model.ts';

type Dialog = (...args: unknown[]) => unknown;

const safeContexts = new WeakMap<object, PiContext>();
const safeUis = new WeakMap<object, PiContext['ui']>();

/** Pi with every context it hands us (events, commands, tool calls) made terminal-safe. */
export function terminalSafeHost(pi: PiHost): PiHost {
  return new Proxy(pi, {
    get(target, key) {
      if (key === 'on')
        return (event: string, handler: (event: unknown, ctx: PiContext) => unknown) =>
          target.on(event, (payload, ctx) => handler(payload, terminalSafeContext(ctx)));
      if (key === 'registerCommand')
        return (name: string, options: PiCommandDefinition) =>
          target.registerCommand(name, {
            ...options,
            ...(options.description === undefined ? {} : { description: plainLine(options.description) }),
            handler: (args, ctx) => options.handler(args, terminalSafeContext(ctx)),
          });
      if (key === 'registerTool')
        return (tool: PiToolDefinition) =>
          target.registerTool({
            ...tool,
            label: plainLine(tool.label),
            ...(tool.namespace ? { namespace: safeNamespace(tool.namespace) } : {}),
            execute: (id, params, signal, onUpdate, ctx) =>
              tool.execute(id, params, signal, onUpdate, terminalSafeContext(ctx)),
          });
      // A message we send as the user's (a server's prompt) is shown by Pi as it is.
      if (key === 'sendUserMessage' && typeof target.sendUserMessage === 'function')
        return (content: Parameters<NonNullable<PiHost['sendUserMessage']>>[0], options?: unknown) =>
          (target.sendUserMessage as (...args: unknown[]) => unknown)(
            typeof content === 'string'
              ? plainText(content)
              : content.map((block) =>
                  block.type === 'text' ? { ...block, text: plainText(block.text) } : block,
                ),
            ...(options === undefined ? [] : [options]),
          );
      const value = Reflect.get(target, key);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

function safeNamespace(namespace: PiNamespace): PiNamespace {
  return {
    ...namespace,
    name: plainLine(namespace.name),
    ...(namespace.aliases ? { aliases: namespace.aliases.map((alias) => plainLine(alias)) } : {}),
    ...(namespace.description === undefined ? {} : { description: plainLine(namespace.description) }),
  };
}

/** The same context, its `ui` showing only sanitized text (one wrapper per context: identity is kept). */
export function terminalSafeContext<T>(ctx: T): T {
  if (typeof ctx !== 'object' || ctx === null || !('ui' in ctx)) return ctx;
  const known = safeContexts.get(ctx);
  if (known) return known as T;
  const safe = new Proxy(ctx, {
    get(target, key) {
      // Read each time: the context may hand out another ui later.
      if (key === 'ui') return terminalSafeUi((target as unknown as PiContext).ui);
      const value = Reflect.get(target, key);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  safeContexts.set(ctx, safe as unknown as PiContext);
  return safe;
}

function terminalSafeUi(ui: PiContext['ui']): PiContext['ui'] {
  if (typeof ui !== 'object' || ui === null) return ui;
  const known = safeUis.get(ui);
  if (known) return known;
  const safe = wrapUi(ui);
  safeUis.set(ui, safe);
  return safe;
}

function wrapUi(ui: PiContext['ui']): PiContext['ui'] {
  const wrapped: Partial<Record<keyof PiContext['ui'], Dialog>> = {
    notify: (message, type) => (ui.notify as Dialog)(plainText(String(message)), type),
    setStatus: (key, text) =>
      (ui.setStatus as Dialog)(key, text === undefined ? undefined : plainLine(String(text))),
    select: async (title, options, opts) => {
      const given = Array.isArray(options) ? (options as unknown[]).map(String) : [];
      const shown = given.map((option) => plainLine(option));
      // Two choices that read the same once cleaned stay apart.
      const unique = shown.map((label, i) => (shown.indexOf(label) === i ? label : `${label} (${i + 1})`));
      const picked = await (ui.select as Dialog)(plainText(String(title)), unique, opts);
      return picked === undefined ? undefined : given[unique.indexOf(picked as string)];
    },
    confirm: (title, message, opts) =>
      (ui.confirm as Dialog)(plainText(String(title)), plainText(String(message)), opts),
    input: (title, placeholder, ...rest) =>
      (ui.input as Dialog)(
        plainText(String(title)),
        placeholder === undefined ? undefined : plainLine(String(placeholder)),
        ...rest,
      ),
  };
  return new Proxy(ui, {
    get(target, key) {
      const value = Reflect.get(target, key);
      if (typeof value !== 'function') return value;
      const safe = wrapped[key as keyof PiUi];
      return safe ?? value.bind(target);
    },
  });
}
