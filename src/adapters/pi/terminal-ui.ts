// Pi strips escape sequences from tool results, but not from what an extension shows through
// ctx.ui (notify, setStatus, dialogs), names in its commands, or a message sent as the user's. Every context Pi hands the bridge is
// wrapped here once, so every text we show — a server's name from a project file, a server's dialog,
// an error, /mcp output — passes the one terminal sanitizer (src/terminal-text.ts) on its way out,
// whichever module shows it. Choices of a dialog are shown sanitized and answered as given.

import { plainLine, plainText } from '../../terminal-text.ts';
import type { PiCommandDefinition, PiContext, PiHost, PiToolDefinition, PiUi } from './bridge.ts';

type Dialog = (...args: unknown[]) => unknown;

const safeContexts = new WeakMap<object, PiContext>();

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
            ...(tool.namespace
              ? {
                  namespace: {
                    ...tool.namespace,
                    name: plainLine(tool.namespace.name),
                    ...(tool.namespace.aliases
                      ? { aliases: tool.namespace.aliases.map((a) => plainLine(a)) }
                      : {}),
                    ...(tool.namespace.description === undefined
                      ? {}
                      : { description: plainLine(tool.namespace.description) }),
                  },
                }
              : {}),
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

/** The same context, its `ui` showing only sanitized text (one wrapper per context: identity is kept). */
export function terminalSafeContext<T>(ctx: T): T {
  if (typeof ctx !== 'object' || ctx === null || !('ui' in ctx)) return ctx;
  const known = safeContexts.get(ctx);
  if (known) return known as T;
  const ui = terminalSafeUi((ctx as unknown as PiContext).ui);
  const safe = new Proxy(ctx, {
    get(target, key) {
      if (key === 'ui') return ui;
      const value = Reflect.get(target, key);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  safeContexts.set(ctx, safe as unknown as PiContext);
  return safe;
}

function terminalSafeUi(ui: PiContext['ui']): PiContext['ui'] {
  if (typeof ui !== 'object' || ui === null) return ui;
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
