// The server machine with its real effects. The Connector itself arrives through input.

import { serverMachine } from '../machines/server.machine.ts';
import { connectLogic } from './connect.ts';
import { pingLogic } from './ping.ts';
import { refreshLogic } from './refresh.ts';
import { watchLogic } from './watch.ts';

export const serverLogic = serverMachine.provide({
  actors: { connect: connectLogic, watch: watchLogic, refresh: refreshLogic, ping: pingLogic },
});
