// The server machine with its real effects. The Connector itself arrives through input; the sign-in
// (and the store needs-auth watches) through the runtime's auth port.

import { defaultTokenStore } from '../auth/default-store.ts';
import type { AuthPort } from '../auth/port.ts';
import { serverMachine } from '../machines/server.machine.ts';
import { closeLogic } from './close.ts';
import { connectLogic } from './connect.ts';
import { pingLogic } from './ping.ts';
import { refreshLogic } from './refresh.ts';
import { signInLogic } from './sign-in.ts';
import { watchLogic } from './watch.ts';
import { watchTokensLogic } from './watch-tokens.ts';

export const serverLogic = serverMachine.provide({
  actors: {
    connect: connectLogic,
    close: closeLogic,
    watch: watchLogic,
    refresh: refreshLogic,
    ping: pingLogic,
    watchTokens: watchTokensLogic(defaultTokenStore),
  },
});

/** The server logic signing in through, and watching the store of, the runtime's auth port (when it has one). */
export function serverLogicWith(auth: Pick<AuthPort, 'store' | 'signIn'> | undefined): typeof serverLogic {
  return auth
    ? serverLogic.provide({
        actors: { watchTokens: watchTokensLogic(() => auth.store), signIn: signInLogic(auth) },
      })
    : serverLogic;
}
