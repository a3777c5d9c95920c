// The Pi side of the /mcp panel: Pi's keys map to the panel's, `custom()` gets a component that
// draws and closes, and a Pi without a custom UI (RPC answers at once) makes the caller print text.

import { afterEach, describe, expect, it } from 'vitest';
import { SimulatedClock, waitFor } from 'xstate';
import { createRuntime, type Runtime } from '../../../src/actors/session-actor.ts';
import {
  type PiCustomFactory,
  type PiKeybindings,
  type PiTuiKit,
  panelKey,
  showMcpPanel,
} from '../../../src/adapters/pi/panel.ts';
import { nullLogger } from '../../../src/logger.ts';
import { SecretValues } from '../../../src/redact/index.ts';
import { silentHost } from '../../../src/session/host-port.ts';
import { scriptedConnector } from '../../machine/fakes.ts';
import { definition, loadedConfig } from '../../support/config.ts';

const ESC = '\x1b';
const UP = '\x1b[A';
const DOWN = '\x1b[B';
const kit: PiTuiKit = {
  visibleWidth: (t) => [...t].length,
  truncateToWidth: (t, w) => ([...t].length <= w ? t : `${[...t].slice(0, w - 1).join('')}…`),
  wrapTextWithAnsi: (t) => t.split('\n'),
  matchesKey: (data, key) => data === key,
};
const keybindings: PiKeybindings = {
  matches: (data, action) =>
    ({ 'tui.select.up': UP, 'tui.select.down': DOWN, 'tui.select.cancel': ESC, 'tui.select.confirm': '\r' })[
      action
    ] === data,
};
const theme = { fg: (_color: string, t: string) => t, bold: (t: string) => t };

let runtime: Runtime | undefined;

afterEach(async () => {
  await runtime?.stop();
  runtime?.dispose();
  runtime = undefined;
});

/** alpha and beta; beta answered 401 and needs a sign-in. */
async function startRuntime(): Promise<Runtime> {
  const config = loadedConfig([definition({ name: 'alpha' }), definition({ name: 'beta' })]);
  const scripted = scriptedConnector();
  runtime = createRuntime({
    secrets: new SecretValues(),
    host: silentHost(),
    connector: scripted.connector,
    loadConfig: () => config,
    logger: nullLogger,
    tempDir: '/nonexistent',
    clock: new SimulatedClock(),
  });
  await runtime.start({ cwd: '/p', projectTrusted: true });
  scripted.attempts.find((a) => a.definition.name === 'beta')!.fail('auth', 'HTTP 401');
  await waitFor(runtime.servers().beta!, (s) => s.matches('needsAuth'));
  return runtime;
}

describe('panelKey', () => {
  it("maps Pi's configurable select keys first, then the panel's letters", () => {
    expect(panelKey(UP, keybindings, kit)).toBe('up');
    expect(panelKey(DOWN, keybindings, kit)).toBe('down');
    expect(panelKey(ESC, keybindings, kit)).toBe('back');
    expect(panelKey('\r', keybindings, kit)).toBe('enter');
    expect(panelKey('r', keybindings, kit)).toBe('reconnect');
    expect(panelKey('a', keybindings, kit)).toBe('signIn');
    expect(panelKey('e', keybindings, kit)).toBe('toggleEnabled');
    expect(panelKey('t', keybindings, kit)).toBe('tools');
    expect(panelKey('d', keybindings, kit)).toBe('toggleDirect');
    expect(panelKey('D', keybindings, kit)).toBe('disableInConfig');
    expect(panelKey('y', keybindings, kit)).toBe('yes');
    expect(panelKey('n', keybindings, kit)).toBe('no');
    expect(panelKey('ctrl+d', keybindings, kit)).toBe('close');
    // Any other text is typing; other control keys are nothing.
    expect(panelKey('x', keybindings, kit)).toBe('typed');
    expect(panelKey('hello', keybindings, kit)).toBe('typed');
    expect(panelKey('\x1b[C', keybindings, kit)).toBeUndefined();
    expect(panelKey('\x01', keybindings, kit)).toBeUndefined();
  });
});

describe('showMcpPanel', () => {
  it('draws in custom(), follows keys and ends with what the user chose', async () => {
    const rt = await startRuntime();
    let drawn: string[] = [];
    const ui = {
      custom: <T>(factory: PiCustomFactory<T>) =>
        new Promise<T | undefined>((resolve) => {
          const component = factory(
            { requestRender() {}, terminal: { rows: 30 } },
            theme,
            keybindings,
            resolve,
          );
          drawn = component.render(80);
          component.handleInput(DOWN);
          component.handleInput('a');
        }),
    };
    const outcome = await showMcpPanel(ui, rt, async () => kit);
    expect(drawn.join('\n')).toMatch(/› alpha/);
    expect(outcome).toEqual({ kind: 'signIn', server: 'beta' });
  });

  it('is undefined when custom() answers without showing anything (RPC mode)', async () => {
    const rt = await startRuntime();
    const ui = { custom: async () => undefined };
    expect(await showMcpPanel(ui, rt, async () => kit)).toBeUndefined();
  });
});
