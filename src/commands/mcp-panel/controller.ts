// The /mcp panel's behaviour, host-agnostic: which screen and row are selected, what each key does
// to the session, and when the picture changed. It watches the session actor and every server actor;
// a change rebuilds the view, and the host is told to redraw only when a line of it differs.

import type { AnyActorRef, Subscription } from 'xstate';
import type { Runtime } from '../../actors/session-actor.ts';
import { switchOffInConfig, switchOffTarget } from '../../config/switch-off.ts';
import { oneLine } from '../../tools/tool-search.ts';
import { requestReconnect } from '../request-reconnect.ts';
import { type RenderContext, renderServers, renderTools } from './render.ts';
import { type PanelView, panelView, type ToolRow, toolRows } from './view.ts';

export type PanelKey =
  | 'up'
  | 'down'
  | 'enter'
  | 'back'
  | 'reconnect'
  | 'signIn'
  | 'toggleEnabled'
  | 'tools'
  | 'toggleDirect'
  /** D: switch the server off in the user's config file that defines it (asks first). */
  | 'disableInConfig'
  /** f: take back the consent of a project's server (it then waits again). */
  | 'forget'
  /** y / n: answers to the panel's question. */
  | 'yes'
  | 'no'
  /** Ctrl+D: closes the panel from any screen. */
  | 'close'
  /** A printable key that is none of the above: the user is typing, as into Pi's editor. */
  | 'typed';

/** Keys that act on a server or tool; held back while the user is typing into the panel. */
const LETTER_ACTIONS = new Set<PanelKey>([
  'reconnect',
  'signIn',
  'toggleEnabled',
  'tools',
  'toggleDirect',
  'disableInConfig',
  'forget',
]);
const TYPING =
  'Typing goes to the /mcp panel, not to Pi: esc closes it first. Letter keys act again after ↑ or ↓.';

/** Why the panel closed: the user is done, or wants to sign in to a server (the host runs it). */
export type PanelOutcome =
  | { kind: 'closed' }
  | { kind: 'signIn'; server: string }
  | { kind: 'allow'; server: string }
  | { kind: 'forget'; server: string };

export interface PanelOptions {
  /** Called when the panel's lines changed: the host redraws. */
  onChange(): void;
  /** Called once, when a key closes the panel. */
  onClose(outcome: PanelOutcome): void;
  now?: () => number;
}

export interface PanelController {
  /** The panel's lines; the same array while nothing changed. */
  lines(layout: Omit<RenderContext, 'now'>): string[];
  key(key: PanelKey): void;
  /** Re-reads the clock and the snapshots: durations on screen move on (redraws only if a line changed). */
  tick(): void;
  dispose(): void;
}

type Screen = { kind: 'servers' } | { kind: 'tools'; server: string; selected: number; scroll: number };

export function createPanelController(runtime: Runtime, options: PanelOptions): PanelController {
  const now = options.now ?? Date.now;
  let screen: Screen = { kind: 'servers' };
  const servers = { selected: 0, scroll: 0 };
  let message: string | undefined;
  /** A reconnect asked for with r: its outcome replaces "Reconnecting …" once the server settles. */
  let reconnecting: { server: string; started: boolean } | undefined;
  /** The panel's own yes/no (a restart that would cut another session's calls, a config write): the
   * keys that say yes, and who waits for the answer. */
  let confirming: { yes: ReadonlySet<PanelKey>; resolve: (yes: boolean) => void } | undefined;
  /** Letters the user typed as text (or right after answering a question): actions wait for a move. */
  let typing = false;
  let view: PanelView = panelView(runtime);
  let tools: ToolRow[] = [];
  let layout: Omit<RenderContext, 'now'> | undefined;
  let drawn: string[] = [];
  let closed = false;

  // Every server actor is watched while it exists; the session actor tells when the set changes.
  const watched = new Map<AnyActorRef, Subscription>();
  const watchServers = () => {
    const refs = new Set<AnyActorRef>(Object.values(runtime.servers()));
    for (const [ref, sub] of watched) {
      if (!refs.has(ref)) {
        sub.unsubscribe();
        watched.delete(ref);
      }
    }
    for (const ref of refs)
      if (!watched.has(ref)) watched.set(ref, ref.subscribe({ next: changed, error: changed }));
  };
  // Bursts (a reconnect, stderr lines) coalesce into one rebuild.
  let pending = false;
  function changed() {
    if (pending || closed) return;
    pending = true;
    queueMicrotask(() => {
      pending = false;
      if (closed) return;
      watchServers();
      rebuild();
    });
  }
  const session = runtime.actor.subscribe({ next: changed, error: changed });
  watchServers();
  // Which servers the shared host runs already: asked once as the panel opens (no host is started).
  void runtime.sharedCopies?.().then(changed, () => undefined);

  function rebuild() {
    view = panelView(runtime);
    if (reconnecting) reconnectOutcome(reconnecting);
    servers.selected = Math.min(servers.selected, Math.max(0, view.servers.length - 1));
    if (screen.kind === 'tools') {
      tools = toolRows(runtime, screen.server);
      screen.selected = Math.min(screen.selected, Math.max(0, tools.length - 1));
    }
    redrawIfChanged();
  }

  function render(): string[] {
    if (!layout) return [];
    const ctx = { ...layout, now: now() };
    if (screen.kind === 'servers') {
      const out = renderServers(view, { ...servers, message }, ctx);
      servers.scroll = out.scroll;
      return out.lines;
    }
    const out = renderTools(screen.server, tools, { ...screen, message }, ctx);
    screen.scroll = out.scroll;
    return out.lines;
  }

  function redrawIfChanged() {
    const next = render();
    if (next.length === drawn.length && next.every((line, i) => line === drawn[i])) return;
    drawn = next;
    options.onChange();
  }

  function close(outcome: PanelOutcome) {
    if (closed) return;
    dispose();
    options.onClose(outcome);
  }

  function dispose() {
    closed = true;
    answer(false);
    session.unsubscribe();
    for (const sub of watched.values()) sub.unsubscribe();
    watched.clear();
  }

  function selectedRow() {
    return view.servers[servers.selected];
  }

  function onServers(key: PanelKey) {
    const row = selectedRow();
    switch (key) {
      case 'up':
      case 'down': {
        const n = view.servers.length;
        if (n > 0) servers.selected = (servers.selected + (key === 'up' ? n - 1 : 1)) % n;
        return;
      }
      case 'back':
        return close({ kind: 'closed' });
    }
    if (!row) return;
    switch (key) {
      case 'enter':
      case 'tools':
        if (row.kind === 'skipped') {
          message = `${row.name} is skipped: ${row.reason}${row.waitingConsent ? ' · e allows it' : ''}`;
          return;
        }
        screen = { kind: 'tools', server: row.name, selected: 0, scroll: 0 };
        tools = toolRows(runtime, row.name);
        return;
      case 'reconnect':
        if (row.kind !== 'running') {
          message = `${row.name} is ${row.kind === 'disabled' ? 'disabled: e enables it' : 'skipped'}.`;
          return;
        }
        return reconnect(row.name);
      case 'signIn':
        if (row.kind !== 'running' || (row.health !== 'needs-auth' && !row.oauth)) {
          message = `${row.name} does not need a sign-in.`;
          return;
        }
        return close({ kind: 'signIn', server: row.name });
      case 'forget':
        // The host takes the consent back and starts the session over: the server stops.
        if (row.kind === 'running' && row.fromProject) return close({ kind: 'forget', server: row.name });
        message = `${row.name} is not a server of this project's files: there is no consent to take back.`;
        return;
      case 'toggleEnabled':
        if (row.kind === 'skipped' && row.waitingConsent) return close({ kind: 'allow', server: row.name });
        if (row.kind === 'skipped') {
          message = `${row.name} is skipped by the configuration: ${row.fix ?? row.reason}`;
          return;
        }
        if (row.kind === 'disabled') {
          runtime.actor.send({ type: 'ENABLE', server: row.name });
          message = `${row.name} enabled for this session.`;
        } else {
          runtime.actor.send({ type: 'DISABLE', server: row.name });
          message = `${row.name} disabled for this session; e enables it again, D switches it off in your config.`;
        }
        return;
      case 'disableInConfig':
        if (row.kind === 'skipped') {
          message = `${row.name} is not running: ${row.fix ?? row.reason}`;
          return;
        }
        return switchOff(row.name);
    }
  }

  function switchOff(server: string) {
    const definition = runtime.actor.getSnapshot().context.config?.servers.find((d) => d.name === server);
    if (!definition) return;
    const target = switchOffTarget(definition.source);
    if (target.kind === 'project') {
      message = `${server} is defined by the project (${target.file}), which /mcp does not edit: e switches it off for this session, and forgetting your consent for it keeps it off.`;
      return;
    }
    if (target.kind === 'notOurs') {
      message = `${server} comes from ${target.client ? `${target.client}'s ` : ''}${target.file}, which /mcp does not edit: e switches it off for this session.`;
      return;
    }
    void ask(
      `Switch ${server} off for good: write "enabled": false into ${target.file}?`,
      'y writes it · n or esc leaves the file as it is',
      ['yes', 'enter'],
    ).then(async (yes) => {
      if (!yes || closed) return;
      try {
        await switchOffInConfig(definition.source);
        runtime.actor.send({ type: 'DISABLE', server });
        message = `${server} switched off in ${target.file} ("enabled": false at ${definition.source.keyPath}); set it to true there to switch it back on.`;
      } catch (error) {
        message = `${server} was not switched off: ${target.file} could not be written (${oneLine(String(error), 160)}).`;
      }
      if (!closed) redrawIfChanged();
    });
  }

  function onTools(key: PanelKey, current: Extract<Screen, { kind: 'tools' }>) {
    const n = tools.length;
    switch (key) {
      case 'up':
      case 'down':
        if (n > 0) current.selected = (current.selected + (key === 'up' ? n - 1 : 1)) % n;
        return;
      case 'back':
        screen = { kind: 'servers' };
        return;
      case 'enter':
      case 'toggleDirect':
        return toggleDirect(current);
    }
  }

  function reconnect(server: string) {
    message = `Reconnecting ${server}…`;
    reconnecting = { server, started: false };
    const confirm = (question: string) =>
      ask(question, 'r or y restarts it · n or esc leaves it running', ['reconnect', 'yes', 'enter']);
    void requestReconnect(runtime, server, { confirm }).then((kept) => {
      if (closed || !kept[0]) return;
      if (reconnecting?.server === server) reconnecting = undefined;
      message = kept[0].text;
      redrawIfChanged();
    });
    reconnectOutcome(reconnecting);
  }

  function ask(question: string, keys: string, yes: PanelKey[]): Promise<boolean> {
    answer(false);
    message = `${question} ${keys}`;
    redrawIfChanged();
    return new Promise((resolve) => {
      confirming = { yes: new Set(yes), resolve };
    });
  }

  function answer(yes: boolean) {
    const waiting = confirming;
    confirming = undefined;
    waiting?.resolve(yes);
  }

  function reconnectOutcome(watching: { server: string; started: boolean }) {
    const row = view.servers.find((r) => r.name === watching.server);
    if (row?.kind !== 'running') {
      reconnecting = undefined;
      return;
    }
    if (row.tags.has('starting')) {
      watching.started = true;
      return;
    }
    if (!watching.started) return;
    reconnecting = undefined;
    if (row.tags.has('usable')) message = `${row.name} reconnected.`;
    else if (row.tags.has('needsSignIn')) message = `${row.name} needs a sign-in: a signs in.`;
    else
      message = `Reconnecting ${row.name} failed${row.lastError ? `: ${oneLine(row.lastError.message, 160)}` : '.'}`;
  }

  function toggleDirect(current: Extract<Screen, { kind: 'tools' }>) {
    const tool = tools[current.selected];
    if (!tool) return;
    if (runtime.actor.getSnapshot().context.disabled.includes(current.server)) {
      message = `${current.server} is disabled for this session: enable it first.`;
      return;
    }
    if (tool.exposure === 'direct') {
      message = `${tool.name} is direct in the configuration (directTools).`;
      return;
    }
    if (tool.exposure === 'session') {
      runtime.actor.send({ type: 'DEACTIVATE', names: [tool.name] });
      message = `${tool.name} is deferred again: ToolSearch finds it when needed.`;
    } else {
      // A tool ToolSearch loaded is active already: `d` keeps it so, now on the user's word.
      runtime.actor.send({ type: 'ACTIVATE', names: [tool.name], pinned: true });
      message = `${tool.name} is direct for this session: the model sees it on every turn.`;
    }
  }

  return {
    lines(next) {
      if (
        !layout ||
        layout.width !== next.width ||
        layout.height !== next.height ||
        layout.style !== next.style ||
        layout.text !== next.text
      ) {
        layout = next;
        drawn = render();
      }
      return drawn;
    },
    key(key) {
      if (closed) return;
      if (key === 'close') return close({ kind: 'closed' });
      if (confirming) {
        // The answer to the panel's question: its yes keys, or n or esc; other keys leave the
        // question standing, so typed text cannot answer it.
        const yes = confirming.yes.has(key);
        if (!yes && key !== 'no' && key !== 'back') return;
        message = yes && reconnecting ? `Reconnecting ${reconnecting.server}…` : undefined;
        // "yes" typed as a word must not go on to press e and s.
        typing = key !== 'enter';
        answer(yes);
        return redrawIfChanged();
      }
      if (key === 'typed' || key === 'yes' || key === 'no' || (typing && LETTER_ACTIONS.has(key))) {
        typing = true;
        message = TYPING;
        return redrawIfChanged();
      }
      typing = false;
      message = undefined;
      if (screen.kind === 'servers') onServers(key);
      else onTools(key, screen);
      if (closed) return;
      if (screen.kind === 'tools') tools = toolRows(runtime, screen.server);
      redrawIfChanged();
    },
    tick() {
      if (closed) return;
      // Only the clock moved: what the snapshots say (the shared host's copies too) rebuilt the view already.
      redrawIfChanged();
    },
    dispose,
  };
}
