// While a server needs auth: watches the sign-in store and sends AUTHENTICATED when tokens for it
// appear, whichever process signed in (the CLI, another Pi session, Pi's built-in `pi mcp login`).

import { fromCallback } from 'xstate';
import { signInSettings } from '../auth/sign-in-binding.ts';
import type { TokenStore } from '../auth/token-store.ts';
import type { WatchTokensInput } from '../machines/server-types.ts';

export function watchTokensLogic(store: () => TokenStore) {
  return fromCallback<{ type: 'AUTHENTICATED' }, WatchTokensInput>(({ input, sendBack }) => {
    const { name, url } = input.definition;
    if (!url) return () => {};
    return store().watch(
      name,
      url,
      () => sendBack({ type: 'AUTHENTICATED' }),
      signInSettings(input.definition),
    );
  });
}
