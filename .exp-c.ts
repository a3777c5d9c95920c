import { createMachine } from 'xstate';
import { createTestModel } from 'xstate/graph';
for (const lifecycle of ['lazy', 'keep-alive'] as const) {
  const reconnects = lifecycle !== 'lazy';
  const full = createMachine({
    id: 'm', initial: 'init',
    states: {
      init: { on: { CONNECT: 'connecting', RETRY: 'connecting', CLOSE: 'closed' } },
      connecting: { on: { CONNECT_OK: 'connected', CONNECT_AUTH: 'needsAuth', CONNECT_FAIL: 'backoff', STARTUP_TIMEOUT: 'backoff', CLOSE: 'closed' } },
      connected: { on: { DROP: reconnects ? 'backoff' : 'closed', CLOSE: 'closed', ...(reconnects ? {} : { IDLE_TIMEOUT: 'closed' }) } },
      needsAuth: { on: { AUTHENTICATED: 'connecting', RETRY: 'connecting', CLOSE: 'closed' } },
      backoff: { on: { BACKOFF_ELAPSED: reconnects ? 'connecting' : 'closed', RETRY: 'connecting', CLOSE: 'closed' } },
      closed: { on: { CONNECT: 'connecting', RETRY: 'connecting' } },
    },
  });
  const small = createMachine({
    id: 'm', initial: 'init',
    states: {
      init: { on: { CONNECT: 'connecting' } },
      connecting: { on: { CONNECT_OK: 'connected', CONNECT_AUTH: 'needsAuth', CONNECT_FAIL: 'backoff', STARTUP_TIMEOUT: 'backoff', CLOSE: 'closed' } },
      connected: { on: { DROP: reconnects ? 'backoff' : 'closed', CLOSE: 'closed', ...(reconnects ? {} : { IDLE_TIMEOUT: 'closed' }) } },
      needsAuth: { on: { AUTHENTICATED: 'connecting', CLOSE: 'closed' } },
      backoff: { on: { BACKOFF_ELAPSED: reconnects ? 'connecting' : 'closed', RETRY: 'connecting', CLOSE: 'closed' } },
      closed: { on: { CONNECT: 'connecting' } },
    },
  });
  for (const [name, m] of [['full', full], ['small', small]] as const) {
    const a = createTestModel(m).getSimplePaths();
    const b = createTestModel(m, { serializeTransition: () => '' }).getSimplePaths();
    const c = createTestModel(m, { serializeTransition: () => '' }).getSimplePaths({ allowDuplicatePaths: true });
    console.log(lifecycle, name, 'transition-vertices', a.length, 'state-vertices', b.length, c.length, Math.max(...b.map(p => p.steps.length)));
    if (name === 'full') {
      const ev = new Set<string>(); for (const p of b) for (const s of p.steps) ev.add(`${JSON.stringify(s.state?.value)}:${s.event.type}`);
      console.log('transitions covered (state-vertex paths)', ev.size);
    }
  }
}
