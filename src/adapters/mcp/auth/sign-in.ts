// Signing in to one server (OAuth 2.1 authorization code + PKCE, or client_credentials), on the SDK's
// auth(): discovery (RFC 9728 protected-resource metadata, RFC 8414 / OpenID authorization-server
// metadata, issuer checked), client identity (pre-registered, client ID metadata document, else
// dynamic registration), the `resource` indicator (RFC 8707), scopes from WWW-Authenticate, a step-up
// asked for earlier, or the metadata. The redirect comes back to a loopback server or as a pasted URL;
// its `state` and `iss` (RFC 9207) are checked before the code is exchanged. Tokens land in the store,
// which wakes every session waiting for them.

import { auth } from '@modelcontextprotocol/client';
import type { AuthPort, SignInIo, SignInResult } from '../../../auth/port.ts';
import { signInSettings } from '../../../auth/sign-in-binding.ts';
import type { TokenStore } from '../../../auth/token-store.ts';
import type { ServerDefinition } from '../../../config/types.ts';
import { formatDuration } from '../../../duration.ts';
import { describe } from '../errors.ts';
import { serverFetch } from '../server-fetch.ts';
import { openBrowser } from './browser.ts';
import { probeChallenge } from './challenge-probe.ts';
import { type CallbackRequest, listenForCallback } from './loopback.ts';
import { StoreOAuthProvider } from './provider.ts';

export const SIGN_IN_TIMEOUT_MS = 5 * 60_000;

export interface SignInOptions {
  timeoutMs?: number;
  fetch?: (input: string | URL, init?: RequestInit) => Promise<Response>;
  env?: NodeJS.ProcessEnv;
}

export async function signInServer(
  def: ServerDefinition,
  store: TokenStore,
  io: SignInIo,
  options: SignInOptions = {},
): Promise<SignInResult> {
  const name = def.name;
  if (!def.url || def.transport === 'stdio') {
    return { ok: false, message: `"${name}" is a stdio server: it has no OAuth sign-in.` };
  }
  const serverUrl = def.url;
  try {
    const baseFetch = options.fetch ?? serverFetch(def, (values) => store.learnSecrets(values));
    const grant = def.oauth?.grantType;
    if (grant === 'client_credentials' || grant === 'jwt-bearer') {
      const provider = new StoreOAuthProvider(def, store, undefined, baseFetch);
      const result = await auth(provider, { serverUrl, fetchFn: provider.fetch });
      return result === 'AUTHORIZED'
        ? {
            ok: true,
            message: `${name}: signed in with its ${grant === 'jwt-bearer' ? 'identity token' : 'client credentials'}.`,
          }
        : { ok: false, message: `${name}: the authorization server did not issue a token.` };
    }
    const challenge = await probeChallenge(serverUrl, baseFetch);
    let provider: StoreOAuthProvider | undefined;
    const callback = await listenForCallback({
      ...callbackPlace(def, store.get(name, serverUrl, signInSettings(def))?.clientInformation),
      expectedState: () => provider?.expectedState(),
    });
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    io.signal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => stop.abort(), options.timeoutMs ?? SIGN_IN_TIMEOUT_MS);
    timer.unref();
    try {
      let authorizationUrl: URL | undefined;
      provider = new StoreOAuthProvider(
        def,
        store,
        {
          redirectUrl: def.oauth?.redirectUri ?? callback.redirectUrl,
          onAuthorizationUrl: (url) => {
            authorizationUrl = url;
          },
        },
        baseFetch,
      );
      // What the server asks for now, a step-up it asked for, and what was granted before (a new
      // sign-in must not lose scope).
      const record = store.get(name, serverUrl, signInSettings(def));
      const scope = union(challenge.scope, record?.scope, record?.scope ? record.tokens?.scope : undefined);
      const common = {
        serverUrl,
        fetchFn: provider.fetch,
        ...(challenge.resourceMetadataUrl ? { resourceMetadataUrl: challenge.resourceMetadataUrl } : {}),
      };
      const first = await auth(provider, { ...common, ...(scope ? { scope } : {}) });
      if (first === 'AUTHORIZED' || !authorizationUrl) return { ok: true, message: `${name}: signed in.` };
      const shown = authorizationUrl.toString();
      io.showUrl(shown, openBrowser(shown, options.env));
      const redirected = await waitForRedirect(callback.received, io, stop.signal);
      if (!redirected) {
        return {
          ok: false,
          message: io.signal?.aborted
            ? `${name}: sign-in cancelled.`
            : `${name}: no sign-in arrived within ${formatDuration(options.timeoutMs ?? SIGN_IN_TIMEOUT_MS)}; run the sign-in again.`,
        };
      }
      const result = await finishSignIn(redirected.url, provider, common, name).catch(
        (error): SignInResult => ({ ok: false, message: `${name}: sign-in failed: ${describe(error)}` }),
      );
      redirected.answer?.(
        result.ok,
        result.ok
          ? `pi-mcp-actors is signed in to ${name}. You can close this page.`
          : `${result.message} Go back to your terminal.`,
      );
      return result;
    } finally {
      clearTimeout(timer);
      io.signal?.removeEventListener('abort', onAbort);
      stop.abort();
      await callback.close();
    }
  } catch (error) {
    return { ok: false, message: `${name}: sign-in failed: ${describe(error)}` };
  }
}

/** Forgets the server's tokens and registered client (in this store; Pi's own file is not touched). */
export async function signOutServer(def: ServerDefinition, store: TokenStore): Promise<SignInResult> {
  if (!def.url) return { ok: false, message: `"${def.name}" is a stdio server: it has no OAuth sign-in.` };
  const removed = await store.remove(def.name, def.url, signInSettings(def));
  return { ok: true, message: removed ? `${def.name}: signed out.` : `${def.name}: was not signed in.` };
}

/**
 * Where the loopback listens: the configured redirect URI or port; else the port the registered
 * client last used when it is free (a server that matches redirect URIs exactly keeps working),
 * else any free port.
 */
function callbackPlace(
  def: ServerDefinition,
  client: Record<string, unknown> | undefined,
): { port?: number; preferredPort?: number; path?: string } {
  const oauth = def.oauth;
  const place: { port?: number; preferredPort?: number; path?: string } = {};
  if (oauth?.redirectUri) {
    try {
      const url = new URL(oauth.redirectUri);
      if (url.port) place.port = Number(url.port);
      place.path = url.pathname;
    } catch {
      // Validated by the config loader; fall back to the defaults.
    }
  }
  if (place.port === undefined && oauth?.callbackPort !== undefined) place.port = oauth.callbackPort;
  if (place.port === undefined && !oauth?.redirectUri) {
    const uris = Array.isArray(client?.redirect_uris) ? client.redirect_uris : [];
    const port = uris
      .map((uri) => (typeof uri === 'string' ? URL.parse(uri) : null))
      .find((url) => url?.hostname === '127.0.0.1' && url.pathname === (place.path ?? '/callback'))?.port;
    if (port) place.preferredPort = Number(port);
  }
  return place;
}

/** The redirect's code exchanged for tokens, once its `state` and `iss` check out. */
async function finishSignIn(
  url: URL,
  provider: StoreOAuthProvider,
  common: Parameters<typeof auth>[1],
  name: string,
): Promise<SignInResult> {
  const code = checkRedirect(url, provider, name);
  if (typeof code !== 'string') return code;
  // RFC 9207: the SDK checks the issuer the redirect names too (against the one discovery found).
  const iss = url.searchParams.get('iss') ?? undefined;
  const second = await auth(provider, {
    ...common,
    authorizationCode: code,
    ...(iss === undefined ? {} : { iss }),
  });
  return second === 'AUTHORIZED'
    ? { ok: true, message: `${name}: signed in.` }
    : {
        ok: false,
        message: `${name}: the authorization server did not issue a token; run the sign-in again.`,
      };
}

/** The redirect URL, and how to answer the browser when it came to the loopback. */
type Redirect = { url: URL; answer?: CallbackRequest['answer'] };

/** The loopback's request (answered once the sign-in ends) or a pasted URL, whichever comes first. */
async function waitForRedirect(
  loopback: Promise<CallbackRequest>,
  io: SignInIo,
  signal: AbortSignal,
): Promise<Redirect | undefined> {
  const aborted = new Promise<undefined>((resolve) => {
    if (signal.aborted) resolve(undefined);
    signal.addEventListener('abort', () => resolve(undefined), { once: true });
  });
  const racers: Array<Promise<Redirect | undefined>> = [loopback, aborted];
  if (io.pasteRedirectUrl) {
    racers.push(
      io.pasteRedirectUrl(signal).then(
        (text) => {
          const url = parsePasted(text);
          return url ? { url } : aborted;
        },
        () => aborted,
      ),
    );
  }
  return Promise.race(racers);
}

function parsePasted(text: string | undefined): URL | undefined {
  const trimmed = text?.trim();
  if (!trimmed) return undefined;
  try {
    return new URL(trimmed);
  } catch {
    return undefined;
  }
}

/** The code of a redirect whose `state` and `iss` check out, or why not. */
function checkRedirect(url: URL, provider: StoreOAuthProvider, name: string): string | SignInResult {
  const params = url.searchParams;
  const error = params.get('error');
  if (error) {
    const why = params.get('error_description');
    return {
      ok: false,
      message: `${name}: the authorization server refused the sign-in: ${error}${why ? ` (${why})` : ''}`,
    };
  }
  if (params.get('state') !== provider.expectedState()) {
    return {
      ok: false,
      message: `${name}: the redirect does not belong to this sign-in (state mismatch); run it again.`,
    };
  }
  const iss = params.get('iss');
  const issuer = provider.issuer();
  if (iss !== null && issuer !== undefined && iss.replace(/\/$/, '') !== issuer.replace(/\/$/, '')) {
    return {
      ok: false,
      message: `${name}: the redirect came from issuer ${iss}, not ${issuer}; sign-in refused (RFC 9207).`,
    };
  }
  if (iss === null && provider.issuerParameterRequired()) {
    return {
      ok: false,
      message: `${name}: the redirect lacks the iss parameter its authorization server promises (RFC 9207).`,
    };
  }
  const code = params.get('code');
  provider.learnSecrets([code]);
  if (!code) return { ok: false, message: `${name}: the redirect URL has no authorization code.` };
  return code;
}

function union(...scopes: Array<string | undefined>): string | undefined {
  const words = new Set(scopes.flatMap((s) => (s ?? '').split(' ').filter(Boolean)));
  return words.size > 0 ? [...words].join(' ') : undefined;
}

/** The sign-in port on the SDK, for the runtime and the CLI. */
export function createAuthPort(store: TokenStore, options: SignInOptions = {}): AuthPort {
  return {
    store,
    signIn: (def, io) => signInServer(def, store, io, options),
    signOut: (def) => signOutServer(def, store),
  };
}
