// The server machine with its real effects. The Connector itself arrives through input.

import { defaultTokenStore } from '../auth/default-store.ts';
import type { TokenStore } from '../auth/token-store.ts';
import { serverMachine } from '../machines/server.machine.ts';
import { connectLogic } from './connect.ts';
import { pingLogic } from './ping.ts';
import { refreshLogic } from './refresh.ts';
import { watchLogic } from './watch.ts';
import { watchTokensLogic } from './watch-tokens.ts';

export const serverLogic = serverMachine.provide({
  actors: {
    connect: connectLogic,
    watch: watchLogic,
    refresh: refreshLogic,
    ping: pingLogic,
    watchTokens: watchTokensLogic(defaultTokenStore),
  },
});

/** The server logic watching a given sign-in store (the runtime's, when it was given one). */
export function serverLogicWith(store: TokenStore | undefined): typeof serverLogic {
  return store
    ? serverLogic.provide({ actors: { watchTokens: watchTokensLogic(() => store) } })
    : serverLogic;
}
