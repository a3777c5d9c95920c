// The sign-in store of the current user's agent dir (PI_CODING_AGENT_DIR, else ~/.pi/agent), for code
// built without an explicit one (the default connector, the default server logic).

import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { agentDirFrom } from '../config/agent-dir.ts';
import { createTokenStore, TOKEN_STORE_FILE, type TokenStore } from './token-store.ts';

const stores = new Map<string, TokenStore>();

export function tokenStoreFor(agentDir: string): TokenStore {
  let store = stores.get(agentDir);
  if (!store) {
    store = createTokenStore({ agentDir });
    stores.set(agentDir, store);
  }
  return store;
}

export function defaultTokenStore(): TokenStore {
  return tokenStoreFor(agentDirFrom(process.env, homedir()));
}

/** Whether `store` is the agent dir's own (the one the shared host of that agent dir signs in with). */
export function isStoreOf(store: TokenStore, agentDir: string): boolean {
  return resolve(store.file) === resolve(agentDir, TOKEN_STORE_FILE);
}
