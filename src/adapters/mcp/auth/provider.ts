// Our OAuthClientProvider: the SDK's auth() asks it for the client identity and tokens and hands it
// what it learns; everything lasting goes to the sign-in store (src/auth/token-store.ts), so the CLI
// and every Pi session share one sign-in.
//
// Two modes. While connecting (no `interactive`), it never starts a browser flow: it sends the stored
// access token, refreshes it shortly before it expires and once after a 401, and otherwise records
// why the user must sign in (never signed in, refresh token refused, more scope needed). During a
// sign-in (`interactive`), it hands the authorization URL to the caller.
//
// Refreshes are serialized across processes: the token request goes through `fetch` below, which
// holds the server's refresh lock, and when another process rotated the refresh token meanwhile it
// answers with that process's tokens instead of spending the old refresh token (one refresh, both
// keep working).

import { randomBytes } from 'node:crypto';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/client';
import {
  type AddClientAuthentication,
  auth,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
} from '@modelcontextprotocol/client';
import type { SignInRecord, StoredTokens, TokenStore } from '../../../auth/token-store.ts';
import type { ServerDefinition } from '../../../config/types.ts';
import { addSecrets } from '../../../redact.ts';
import { privateKeyJwtAuth, usesPrivateKey } from './client-assertion.ts';

export const CLIENT_NAME = 'pi-mcp-actors';
/** Refresh this long before the access token expires (at most half its lifetime). */
export const REFRESH_SKEW_MS = 60_000;

export type SignInNeed =
  | { kind: 'sign-in'; elsewhere?: string }
  | { kind: 'refresh-refused' }
  | { kind: 'scope'; scope: string }
  | { kind: 'issuer'; message: string };

/** Thrown from auth() when connecting finds no sign-in: nothing to refresh, nobody to ask. */
export class SignInRequiredError extends Error {
  constructor(server: string) {
    super(`Server "${server}" needs you to sign in`);
    this.name = 'SignInRequiredError';
  }
}

export interface InteractiveOptions {
  redirectUrl: string;
  onAuthorizationUrl(url: URL): void;
}

type FetchLike = (input: string | URL, init?: RequestInit) => Promise<Response>;

export class StoreOAuthProvider implements OAuthClientProvider {
  readonly serverUrl: string;
  private verifier: string | undefined;
  private stateValue: string | undefined;
  private refreshing: Promise<void> | undefined;
  private need: SignInNeed | undefined;
  /** Discovery of this run, for the RFC 9207 `iss` check of the redirect. */
  private discovered: OAuthDiscoveryState | undefined;

  constructor(
    private readonly def: ServerDefinition,
    private readonly store: TokenStore,
    private readonly interactive?: InteractiveOptions,
    private readonly baseFetch: FetchLike = fetch,
  ) {
    this.serverUrl = def.url ?? '';
    this.addClientAuthentication = privateKeyJwtAuth(def.oauth);
  }

  get redirectUrl(): string | undefined {
    if (this.clientCredentials) return undefined;
    return this.interactive?.redirectUrl ?? this.def.oauth?.redirectUri ?? 'http://127.0.0.1/callback';
  }

  get clientMetadataUrl(): string | undefined {
    const oauth = this.def.oauth;
    return oauth?.clientRegistration === 'dcr' ? undefined : oauth?.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    const oauth = this.def.oauth;
    const redirect = this.redirectUrl;
    const metadata = {
      // SEP-837: a client on the user's machine with a loopback redirect registers as native.
      application_type: 'native',
      client_name: oauth?.clientName ?? CLIENT_NAME,
      redirect_uris: redirect ? [redirect] : [],
      grant_types: this.clientCredentials ? ['client_credentials'] : ['authorization_code', 'refresh_token'],
      response_types: this.clientCredentials ? [] : ['code'],
      token_endpoint_auth_method: usesPrivateKey(oauth)
        ? 'private_key_jwt'
        : oauth?.clientSecret
          ? 'client_secret_post'
          : 'none',
      ...(oauth?.scope ? { scope: oauth.scope } : {}),
      ...(oauth?.clientUri ? { client_uri: oauth.clientUri } : {}),
      ...(oauth?.logoUri ? { logo_uri: oauth.logoUri } : {}),
    };
    return metadata;
  }

  /** `private_key_jwt` (RFC 7523) when a private key is configured; else the SDK sends the secret. */
  readonly addClientAuthentication: AddClientAuthentication | undefined;

  /** Why connecting needs a sign-in, once auth() gave up. */
  signInNeed(): SignInNeed | undefined {
    return this.need;
  }

  /** The issuer the authorization server's metadata names (after discovery in this run). */
  issuer(): string | undefined {
    return this.discovered?.authorizationServerMetadata?.issuer;
  }

  /** Whether the server declares RFC 9207 support (`iss` in every authorization response). */
  issuerParameterRequired(): boolean {
    const metadata = this.discovered?.authorizationServerMetadata as Record<string, unknown> | undefined;
    return metadata?.authorization_response_iss_parameter_supported === true;
  }

  private get clientCredentials(): boolean {
    return this.def.oauth?.grantType === 'client_credentials';
  }

  private record(): SignInRecord | undefined {
    return this.store.get(this.def.name, this.serverUrl);
  }

  private update(change: (current: SignInRecord | undefined) => SignInRecord | undefined) {
    return this.store.update(this.def.name, this.serverUrl, change);
  }

  state(): string {
    this.stateValue ??= randomBytes(16).toString('hex');
    return this.stateValue;
  }

  /** The `state` sent with this sign-in's authorization request. */
  expectedState(): string | undefined {
    return this.stateValue;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    const oauth = this.def.oauth;
    if (oauth?.clientId) {
      return {
        client_id: oauth.clientId,
        ...(oauth.clientSecret ? { client_secret: oauth.clientSecret } : {}),
      };
    }
    const record = this.record();
    // Connecting without any sign-in: do not register a client nobody asked for.
    if (!this.interactive && !this.clientCredentials && !record?.tokens) {
      if (this.need?.kind !== 'refresh-refused') {
        this.need = record?.scope ? { kind: 'scope', scope: record.scope } : this.signInNeeded(record);
      }
      throw new SignInRequiredError(this.def.name);
    }
    const stored = record?.clientInformation as OAuthClientInformationMixed | undefined;
    // A client registered for another redirect URI (another callback port) cannot finish this sign-in.
    const uris = (stored as { redirect_uris?: unknown } | undefined)?.redirect_uris;
    const redirect = this.redirectUrl;
    if (this.interactive && redirect && Array.isArray(uris) && !uris.includes(redirect)) return undefined;
    return stored;
  }

  async saveClientInformation(information: OAuthClientInformationMixed): Promise<void> {
    if (this.def.oauth?.clientId) return;
    await this.update((current) => ({
      ...base(current, this.def, this.serverUrl),
      clientInformation: { ...information },
    }));
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    // A sign-in asks for new consent (a refresh cannot add scope).
    if (this.interactive) return undefined;
    const record = this.record();
    if (!record?.tokens) return undefined;
    const expiresAt = record.tokensExpireAt;
    // A minute early, or half the lifetime of short-lived tokens (else every request would refresh).
    const lifetimeMs =
      typeof record.tokens.expires_in === 'number' ? record.tokens.expires_in * 1000 : Infinity;
    const skewMs = Math.min(REFRESH_SKEW_MS, lifetimeMs / 2);
    if (
      !this.refreshing &&
      record.tokens.refresh_token &&
      expiresAt !== undefined &&
      expiresAt - Date.now() < skewMs
    ) {
      await this.refreshNow().catch(() => undefined);
      return this.record()?.tokens as OAuthTokens | undefined;
    }
    return record.tokens as OAuthTokens;
  }

  /** Refreshes through auth(); tokens() answers from the store while it runs. */
  private refreshNow(): Promise<void> {
    this.refreshing ??= (async () => {
      try {
        await auth(this, { serverUrl: this.serverUrl, fetchFn: this.fetch });
      } finally {
        this.refreshing = undefined;
      }
    })();
    return this.refreshing;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    await this.update((current) =>
      withTokens(base(current, this.def, this.serverUrl), tokens as StoredTokens, !!this.interactive),
    );
    this.need = undefined;
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    for (const [key, value] of Object.entries(this.def.oauth?.authorizationParams ?? {}))
      if (!url.searchParams.has(key)) url.searchParams.set(key, value);
    if (this.interactive) {
      this.interactive.onAuthorizationUrl(url);
      return;
    }
    const record = this.record();
    const asked = (url.searchParams.get('scope') ?? '').split(' ').filter(Boolean);
    const granted = new Set((record?.tokens?.scope ?? '').split(' ').filter(Boolean));
    const missing = asked.filter((s) => !granted.has(s));
    if (record?.tokens && record.tokens.scope !== undefined && missing.length > 0) {
      const scope = asked.join(' ');
      this.need = { kind: 'scope', scope: missing.join(' ') };
      if (record.scope !== scope) {
        await this.update((current) => ({ ...base(current, this.def, this.serverUrl), scope })).catch(
          () => undefined,
        );
      }
    } else if (this.need?.kind !== 'refresh-refused') {
      this.need = this.signInNeeded(record);
    }
  }

  /** Never signed in here: say where the user may have signed in that we cannot read. */
  private signInNeeded(record: SignInRecord | undefined): SignInNeed {
    const elsewhere = record?.tokens ? undefined : this.store.signInElsewhere?.(this.def.name);
    return elsewhere ? { kind: 'sign-in', elsewhere } : { kind: 'sign-in' };
  }

  /** A 403 insufficient_scope (step-up): remember the scope for the next sign-in. */
  private async noteInsufficientScope(header: string | null): Promise<void> {
    if (!header || !/error="?insufficient_scope/i.test(header)) return;
    const scope = /scope="([^"]*)"/i.exec(header)?.[1] ?? '';
    const record = this.record();
    const granted = new Set((record?.tokens?.scope ?? '').split(' ').filter(Boolean));
    const missing = scope.split(' ').filter((s) => s && !granted.has(s));
    if (missing.length === 0) return;
    this.need = { kind: 'scope', scope: missing.join(' ') };
    if (record?.scope !== scope) {
      await this.update((current) => ({ ...base(current, this.def, this.serverUrl), scope })).catch(
        () => undefined,
      );
    }
  }

  saveCodeVerifier(verifier: string): void {
    addSecrets([verifier]);
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error('No sign-in is in progress (no PKCE verifier)');
    return this.verifier;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'verifier') {
      this.verifier = undefined;
      return;
    }
    if ((scope === 'tokens' || scope === 'all') && this.record()?.tokens)
      this.need = { kind: 'refresh-refused' };
    await this.update((current) => {
      if (!current) return undefined;
      const next = { ...current };
      if (scope === 'tokens' || scope === 'all') {
        delete next.tokens;
        delete next.tokensExpireAt;
      }
      if (scope === 'client' || scope === 'all') delete next.clientInformation;
      if (scope === 'discovery' || scope === 'all') delete next.discovery;
      return next;
    });
  }

  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    const issuer = state.authorizationServerMetadata?.issuer;
    // Checked when the protected resource named its authorization server (RFC 9728 §3.3 and RFC 8414
    // §3.3); the 2025-03-26 fallback (the server's own origin, no resource metadata) predates that.
    const named = state.resourceMetadata !== undefined && !this.def.oauth?.skipIssuerMetadataValidation;
    if (named && issuer !== undefined && !sameIssuer(issuer, state.authorizationServerUrl)) {
      this.need = {
        kind: 'issuer',
        message: `the authorization server's metadata names issuer ${issuer}, not ${state.authorizationServerUrl}`,
      };
      throw new Error(`OAuth discovery for "${this.def.name}" failed: ${this.need.message}`);
    }
    this.discovered = state;
    const record = this.record();
    if (!record && !this.interactive) return;
    // Tokens imported from Pi's built-in MCP carry no issuer: bind them to the one discovery found.
    const stamp = record?.tokens && record.tokens.issuer === undefined;
    if (!stamp && record?.discovery?.authorizationServerUrl === state.authorizationServerUrl) return;
    await this.update((current) => {
      const next: SignInRecord = { ...base(current, this.def, this.serverUrl), discovery: { ...state } };
      if (next.tokens && next.tokens.issuer === undefined)
        next.tokens = { ...next.tokens, issuer: state.authorizationServerUrl };
      if (next.clientInformation && next.clientInformation.issuer === undefined) {
        next.clientInformation = { ...next.clientInformation, issuer: state.authorizationServerUrl };
      }
      return next;
    });
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    // A sign-in discovers afresh (the server may have moved to another authorization server, SEP-2352);
    // its callback leg reuses what its first leg found.
    const stored = this.interactive
      ? this.discovered
      : (this.record()?.discovery as OAuthDiscoveryState | undefined);
    const configured = this.def.oauth?.authServerMetadataUrl;
    if (!configured) return stored;
    // `oauth.authServerMetadataUrl`: the authorization server's metadata, instead of discovering it.
    const response = await this.baseFetch(configured, { headers: { accept: 'application/json' } });
    if (!response.ok) throw new Error(`${configured} answered HTTP ${response.status}`);
    const metadata = (await response.json()) as OAuthDiscoveryState['authorizationServerMetadata'];
    const issuer = metadata?.issuer;
    if (!issuer) throw new Error(`${configured} is not authorization server metadata (no issuer)`);
    return { authorizationServerUrl: issuer, authorizationServerMetadata: metadata };
  }

  prepareTokenRequest(scope?: string): URLSearchParams | undefined {
    if (!this.clientCredentials) return undefined;
    const params = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scope) params.set('scope', scope);
    return params;
  }

  /** fetch for the transport and auth(): refresh-token requests run under the refresh lock. */
  readonly fetch: FetchLike = async (input, init) => {
    const body = init?.body;
    if (!(body instanceof URLSearchParams) || body.get('grant_type') !== 'refresh_token') {
      const response = await this.baseFetch(input, init);
      if (response.status === 403) await this.noteInsufficientScope(response.headers.get('www-authenticate'));
      return response;
    }
    const sent = body.get('refresh_token');
    return this.store.withRefreshLock(this.def.name, this.serverUrl, async () => {
      const current = this.record();
      const stored = current?.tokens;
      if (stored?.refresh_token && stored.refresh_token !== sent)
        return tokenResponse(stored, current?.tokensExpireAt);
      const response = await this.baseFetch(input, init);
      if (response.ok) {
        const tokens = (await response
          .clone()
          .json()
          .catch(() => undefined)) as StoredTokens | undefined;
        if (tokens?.access_token) {
          const issuer = stored?.issuer;
          await this.update((record) =>
            withTokens(
              base(record, this.def, this.serverUrl),
              { ...tokens, ...(issuer ? { issuer } : {}) },
              false,
            ),
          );
        }
      }
      return response;
    });
  };
}

function base(current: SignInRecord | undefined, def: ServerDefinition, url: string): SignInRecord {
  return current ?? { name: def.name, url };
}

function withTokens(record: SignInRecord, tokens: StoredTokens, signedIn: boolean): SignInRecord {
  const next: SignInRecord = { ...record, tokens: { ...tokens } };
  // A refresh response may omit the refresh token: the old one stays valid.
  if (next.tokens && !tokens.refresh_token && record.tokens?.refresh_token && !signedIn) {
    next.tokens.refresh_token = record.tokens.refresh_token;
  }
  if (typeof tokens.expires_in === 'number') next.tokensExpireAt = Date.now() + tokens.expires_in * 1000;
  else delete next.tokensExpireAt;
  if (signedIn) delete next.scope;
  return next;
}

/** What a token endpoint would have answered, from tokens another process already obtained. */
function tokenResponse(tokens: StoredTokens, expiresAt: number | undefined): Response {
  const { issuer: _issuer, ...rest } = tokens;
  const body: Record<string, unknown> = { ...rest };
  if (expiresAt !== undefined) body.expires_in = Math.max(1, Math.floor((expiresAt - Date.now()) / 1000));
  return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
}

/** Issuers compare as URLs, a trailing slash aside (RFC 8414 §3.3 asks for identity). */
function sameIssuer(a: string, b: string): boolean {
  return a.replace(/\/$/, '') === b.replace(/\/$/, '');
}
