// A recording PiHost for supervisor tests: keeps registered tools, the active set, commands, status
// and notifications exactly as Pi would expose them to an extension. Tests drive its events.

import type {
  PiCommandDefinition,
  PiContext,
  PiHost,
  PiToolDefinition,
} from '../../src/adapters/pi/pi-types.ts';

export const PI_BUILTINS = ['read', 'bash', 'edit', 'write'];

export class RecordingPi implements PiHost {
  tools = new Map<string, PiToolDefinition>();
  active: string[] = [...PI_BUILTINS];
  commands = new Map<string, PiCommandDefinition>();
  flags = new Map<string, string | boolean | undefined>();
  handlers = new Map<string, Array<(event: any, ctx: PiContext) => unknown>>();
  notifications: Array<{ message: string; level?: string }> = [];
  status: string | undefined;
  /** What `pi.getMcpServers()` returns: servers other extensions registered. */
  mcpServers: Array<{ name: string; config: unknown; extensionPath: string }> = [];
  readonly ctx: PiContext;
  /** Answers Pi's dialogs (select/input/confirm) as a user would; undefined = Escape. Default: Escape. */
  dialog: (method: string, title: string, options?: string[]) => string | undefined = () => undefined;
  /** What pi.sendUserMessage sent, in order. */
  userMessages: unknown[] = [];
  /** Every dialog shown, in order. */
  dialogs: Array<{ method: string; title: string; options?: string[]; message?: string }> = [];

  constructor(cwd: string, projectTrusted = true) {
    this.ctx = {
      cwd,
      hasUI: true,
      mode: 'rpc',
      isProjectTrusted: () => projectTrusted,
      ui: {
        notify: (message, level) => this.notifications.push({ message, ...(level ? { level } : {}) }),
        setStatus: (_key, text) => {
          this.status = text;
        },
        select: async (title, options) => this.ask('select', title, options),
        input: async (title) => this.ask('input', title),
        confirm: async (title, message) => this.ask('confirm', title, undefined, message) === 'yes',
      },
    };
  }

  private ask(method: string, title: string, options?: string[], message?: string): string | undefined {
    this.dialogs.push({ method, title, ...(options ? { options } : {}), ...(message ? { message } : {}) });
    return this.dialog(method, title, options);
  }

  on(event: string, handler: (event: any, ctx: PiContext) => unknown) {
    this.handlers.set(event, [...(this.handlers.get(event) ?? []), handler]);
    return () => {};
  }
  registerTool(tool: PiToolDefinition) {
    const known = this.tools.has(tool.name);
    this.tools.set(tool.name, tool);
    if (!known && tool.defaultActive !== false && !this.active.includes(tool.name))
      this.active.push(tool.name);
  }
  registerCommand(name: string, options: PiCommandDefinition) {
    this.commands.set(name, options);
  }
  registerFlag(name: string, options: { default?: string | boolean }) {
    this.flags.set(name, options.default);
  }
  getFlag(name: string) {
    return this.flags.get(name);
  }
  sendUserMessage(content: unknown) {
    this.userMessages.push(content);
  }
  getMcpServers() {
    return this.mcpServers;
  }
  getActiveTools() {
    return [...this.active];
  }
  setActiveTools(names: string[]) {
    // Like Pi: unknown and hidden (withdrawn) names are ignored.
    this.active = names.filter(
      (n) => (this.tools.has(n) && this.tools.get(n)!.exposure !== 'hidden') || PI_BUILTINS.includes(n),
    );
  }

  async emit(event: string, payload: unknown = {}) {
    for (const h of this.handlers.get(event) ?? []) await h(payload, this.ctx);
  }
  async command(name: string, args = ''): Promise<string> {
    const before = this.notifications.length;
    await this.commands.get(name)!.handler(args, this.ctx);
    return this.notifications
      .slice(before)
      .map((n) => n.message)
      .join('\n');
  }
  async callTool(name: string, params: Record<string, unknown>, signal?: AbortSignal) {
    const tool = this.tools.get(name);
    if (!tool) throw new Error(`no tool ${name}`);
    return tool.execute('call-1', params, signal, undefined, {});
  }
  /** What the model would see in the next request: the active tools. */
  activeMcp(): string[] {
    return this.active.filter((n) => !PI_BUILTINS.includes(n)).sort();
  }
}
