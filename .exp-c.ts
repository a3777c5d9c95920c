import { createMachine } from 'xstate';
import { createTestModel } from 'xstate/graph';
for (const lifecycle of ['lazy', 'keep-alive'] as const) {
  const reconnects = lifecycle !== 'lazy';
  const m = createMachine({
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
  const paths = createTestModel(m).getSimplePaths();
  console.log(lifecycle, paths.length, paths.slice(0, 3).map(p => p.description));
  console.log(Math.max(...paths.map(p => p.steps.length)));
}
