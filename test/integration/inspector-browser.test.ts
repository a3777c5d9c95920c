// The local visual inspector in a real headless Chromium (the Debian package, provisioned by `npm test`). A real server actor (production server logic, scripted Connector) sends real,
// redacted inspection events to the inspector server while the page is open; the highlighted state
// must follow the server from connecting to connected to backoff. The shared host's copy of a server,
// relayed through the session, gets a card of its own.

import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Actor, type AnyActorRef, createActor, SimulatedClock } from 'xstate';
import { serverLogic } from '../../src/actors/server-actor.ts';
import { HostInspection } from '../../src/host/host-inspection.ts';
import type { HostMessage } from '../../src/host/protocol.ts';
import { createInspection, type Inspection } from '../../src/inspect/inspector.ts';
import { type InspectorServer, startInspectorServer } from '../../src/inspect/server.ts';
import { SecretValues, secretsOfDefinition } from '../../src/redact/index.ts';
import { CHROMIUM_ARGS, requireChromium } from '../fixtures/inspect/chromium.ts';
import { createFakeConnection, createScriptedConnector } from '../fixtures/inspect/scripted-connector.ts';
import { SECRET_VALUES, secretServerDefinition } from '../fixtures/inspect/secret-config.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const STATECHARTS = join(ROOT, 'docs', 'statecharts');
const CARD = '[data-actor="server:fixture"]';
const HOST_CARD = '[data-actor="host:server:fixture"]';
const CONNECTED = [
  'connected',
  'connected_health',
  'connected_health_waiting',
  'connected_prompts',
  'connected_prompts_current',
  'connected_resources',
  'connected_resources_current',
  'connected_tools',
  'connected_tools_current',
  'connected_usage',
  'connected_usage_open',
];
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47]);

let browser: Browser | undefined;
let server: InspectorServer | undefined;
let inspection: Inspection | undefined;
let actor: Actor<typeof serverLogic> | undefined;
let hostActor: Actor<typeof serverLogic> | undefined;
let shots: string;

let chromiumPath: string;

beforeAll(() => {
  chromiumPath = requireChromium();
  shots = mkdtempSync(join(tmpdir(), 'inspector-browser-'));
});

afterAll(async () => {
  actor?.stop();
  hostActor?.stop();
  await inspection?.dispose();
  await browser?.close();
  await server?.close();
  if (shots) rmSync(shots, { recursive: true, force: true });
});

/** Waits until the card shows `state` and exactly the expected chart nodes are highlighted. */
async function expectHighlighted(
  page: Page,
  state: string,
  highlighted: string[],
  card = CARD,
): Promise<void> {
  // These callbacks run in the page; the project compiles without the DOM lib, hence `any`.
  await page.waitForFunction(
    ([selector, wantState, wantIds]) => {
      const card = (globalThis as any).document.querySelector(selector);
      if (card?.dataset.rendered !== 'true' || card.dataset.state !== wantState) return false;
      const ids = [...card.querySelectorAll('svg g.current-state')].map((g: any) => g.dataset.stateId).sort();
      return JSON.stringify(ids) === JSON.stringify([...wantIds].sort());
    },
    [card, state, highlighted] as const,
    { timeout: 20_000 },
  );
  // The highlight is visible, not only a class: a state box is filled, a composite state outlined.
  const look = await page
    .locator(`${card} svg g.current-state[data-state-id="${state}"]`)
    .evaluate((group: any) => {
      const rect = group.querySelector('rect');
      const style = rect ? (globalThis as any).getComputedStyle(rect) : undefined;
      return {
        composite: group.classList.contains('statediagram-cluster') as boolean,
        fill: style?.fill as string | undefined,
        stroke: style?.stroke as string | undefined,
      };
    });
  if (look.composite) expect(look.stroke).toBe('rgb(230, 81, 0)');
  else expect(look.fill).toBe('rgb(255, 224, 130)');
}

async function screenshot(page: Page, name: string): Promise<string> {
  const file = join(shots, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  expect(readFileSync(file).subarray(0, 4).equals(PNG_SIGNATURE)).toBe(true);
  return file;
}

describe('local visual inspector in headless Chromium', () => {
  it('highlights a server going connecting → connected → backoff, live', async () => {
    expect(
      existsSync(join(STATECHARTS, 'server.svg')),
      'docs/statecharts/server.svg (run npm run statecharts)',
    ).toBe(true);
    server = await startInspectorServer({ statechartsDir: STATECHARTS });
    const definition = secretServerDefinition('fixture');
    inspection = createInspection(
      { kind: 'websocket', url: server.wsUrl },
      { known: new SecretValues(), secrets: () => [definition].flatMap(secretsOfDefinition) },
    );

    browser = await chromium.launch({ executablePath: chromiumPath, args: CHROMIUM_ARGS });
    const page = await browser.newPage({ viewport: { width: 1500, height: 1000 } });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') pageErrors.push(message.text());
    });
    const offline: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith('http://127.0.0.1:') && !request.url().startsWith('ws://127.0.0.1:')) {
        if (!request.url().startsWith('data:')) offline.push(request.url());
      }
    });
    await page.goto(server.url);

    const scripted = createScriptedConnector();
    actor = createActor(serverLogic, {
      input: { definition, generation: 1, connector: scripted.connector },
      systemId: 'server:fixture',
      clock: new SimulatedClock(),
      inspect: inspection.inspect,
    }).start();
    await expectHighlighted(page, 'init', ['init']);

    actor.send({ type: 'CONNECT' });
    await expectHighlighted(page, 'connecting', ['connecting', 'connecting_opening']);
    await screenshot(page, 'connecting');

    const connection = createFakeConnection();
    (await scripted.nextAttempt()).resolve(connection);
    await expectHighlighted(page, 'connected', CONNECTED);
    await screenshot(page, 'connected');

    connection.report({ type: 'closed', error: 'pipe closed' });
    await expectHighlighted(page, 'backoff', ['backoff']);
    await screenshot(page, 'backoff');

    // The live log followed the same journey, and the page shows the last error.
    const log = await page.locator('#log li[data-kind="snapshot"]').allTextContents();
    const order = ['→ connecting', '→ connected', '→ backoff'].map((needle) =>
      log.findIndex((line) => line.includes(needle)),
    );
    expect(order.every((index) => index >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => b - a)); // newest first
    await expect
      .poll(() => page.locator(`${CARD} .error`).textContent())
      .toBe('last error: connection lost: pipe closed');

    // The shared host's copy of the server, already running when this session starts inspecting it:
    // its events come from the host's inspection (src/host/host-inspection.ts) through this session's
    // relay, on a card of its own beside the session's.
    const relayed = {
      id: 1,
      send: (m: HostMessage) => {
        if (m.t === 'inspect') inspection?.relay(m.event);
        return true;
      },
    };
    const hostScripted = createScriptedConnector();
    const instance = {
      actor: undefined as unknown as AnyActorRef,
      attachments: new Set([{ client: relayed, a: 1 }]),
      request: { definition },
    };
    const hostInspection = new HostInspection(new SecretValues(), () => [instance], 4242);
    hostActor = createActor(serverLogic, {
      input: { definition, generation: 0, connector: hostScripted.connector },
      clock: new SimulatedClock(),
      inspect: (event) => hostInspection.inspect(instance, event),
    }).start();
    instance.actor = hostActor;
    hostActor.send({ type: 'CONNECT' });
    await hostInspection.setInspecting(relayed, true);
    await expectHighlighted(page, 'connecting', ['connecting', 'connecting_opening'], HOST_CARD);
    (await hostScripted.nextAttempt()).resolve(createFakeConnection());
    await expectHighlighted(page, 'connected', CONNECTED, HOST_CARD);
    await expectHighlighted(page, 'backoff', ['backoff']);
    const cards = await page
      .locator('#cards article')
      .evaluateAll((all: any[]) => all.map((c) => c.dataset.actor));
    expect(cards.slice(0, 2)).toEqual(['server:fixture', 'host:server:fixture']);
    await screenshot(page, 'host');

    // In a 1,400-px window the server's chart is drawn at a readable size (its state names at least
    // 10 px high), inside its card, scrolled so the current state is in view; "Whole chart" fits it.
    await page.setViewportSize({ width: 1400, height: 900 });
    const readable = async () =>
      page.locator(`article${CARD}`).evaluate((card: any) => {
        const chart = card.querySelector('.chart').getBoundingClientRect();
        const groups = [...card.querySelectorAll('svg g.current-state')] as any[];
        const area = (g: any) => g.getBoundingClientRect().width * g.getBoundingClientRect().height;
        const inner = groups.reduce((best, g) => (area(g) < area(best) ? g : best));
        const box = inner.getBoundingClientRect();
        const label = inner.querySelector('.nodeLabel, text, span');
        return {
          cardRight: card.getBoundingClientRect().right,
          inView:
            box.left >= chart.left &&
            box.right <= chart.right &&
            box.top >= chart.top &&
            box.bottom <= chart.bottom,
          labelHeight: label ? label.getBoundingClientRect().height : 0,
        };
      });
    await page.locator(`article${CARD} .zoom`).click();
    await page.locator(`article${CARD} .zoom`).click();
    const shown = await readable();
    expect(shown.cardRight).toBeLessThanOrEqual(1400);
    expect(shown.inView).toBe(true);
    expect(shown.labelHeight).toBeGreaterThanOrEqual(10);
    await page.locator(`article${CARD} .zoom`).click();
    expect((await readable()).labelHeight).toBeLessThan(5);
    await screenshot(page, 'narrow');

    const html = await page.content();
    for (const secret of SECRET_VALUES) expect(html).not.toContain(secret);
    expect(pageErrors).toEqual([]);
    expect(offline).toEqual([]);
  }, 120_000);
});
