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
  type DpopSession,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
} from '@modelcontextprotocol/client';
import {
  bindingMismatch,
  bindingOf,
  type FoundServer,
  issuerMatchesMetadataUrl,
  sameUrl,
  signInSettings,
} from '../../../auth/sign-in-binding.ts';
import type { SignInBinding } from '../../../auth/sign-in-record.ts';
import type { SignInRecord, StoredTokens, TokenStore } from '../../../auth/token-store.ts';
import type { ServerDefinition } from '../../../config/types.ts';
import { privateKeyJwtAuth, usesPrivateKey } from './client-assertion.ts';
import { dpopSessionOf, newDpopKey } from './dpop-key.ts';
import { JWT_BEARER_GRANT, jwtBearerRequest } from './jwt-bearer.ts';
import { isLoopbackHttp } from './loopback.ts';

export const CLIENT_NAME = 'pi-mcp-actors';
/** Refresh this long before the access token expires (at most half its lifetime). */
export const REFRESH_SKEW_MS = 60_000;
const OFFLINE_ACCESS = 'offline_access';

export type SignInNeed =
  | { kind: 'sign-in'; elsewhere?: string }
  | { kind: 'refresh-refused' }
  | { kind: 'scope'; scope: string }
  | { kind: 'issuer'; message: string }
  /** The stored sign-in was made with another authorization server than this entry's settings lead to. */
  | { kind: 'other-server'; message: string };

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
  /** signInSettings() of this entry: its sign-in is stored under them. */
  private readonly settings: string;
  /** The token endpoint that last refused a token request (only its refusal may drop the tokens). */
  private refusedBy: string | undefined;
  /** This sign-in's DPoP session (its key from the store; its server nonces for this process). */
  private dpopSession: Promise<DpopSession> | undefined;

  constructor(
    private readonly def: ServerDefinition,
    private readonly store: TokenStore,
    private readonly interactive?: InteractiveOptions,
    private readonly baseFetch: FetchLike = fetch,
  ) {
    this.serverUrl = def.url ?? '';
    this.settings = signInSettings(def);
    this.addClientAuthentication = privateKeyJwtAuth(def.oauth);
  }

  get redirectUrl(): string | undefined {
    if (this.machineGrant) return undefined;
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
      grant_types: this.machineGrant
        ? [this.jwtBearer ? JWT_BEARER_GRANT : 'client_credentials']
        : ['authorization_code', 'refresh_token'],
      response_types: this.machineGrant ? [] : ['code'],
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

  /** The issuer the authorization server's metadata names (discovered or restored in this run). */
  issuer(): string | undefined {
    return this.discovered?.authorizationServerMetadata?.issuer;
  }

  /** Whether the server declares RFC 9207 support (`iss` in every authorization response). */
  issuerParameterRequired(): boolean {
    const metadata = this.discovered?.authorizationServerMetadata as Record<string, unknown> | undefined;
    return metadata?.authorization_response_iss_parameter_supported === true;
  }

  /** A grant with no user at a browser: tokens are fetched whenever needed. */
  private get machineGrant(): boolean {
    return this.def.oauth?.grantType === 'client_credentials' || this.jwtBearer;
  }

  private get jwtBearer(): boolean {
    return this.def.oauth?.grantType === 'jwt-bearer';
  }

  /**
   * SEP-1932: the sign-in's DPoP session, when `oauth.dpop` asks for one: the stored key, else a new
   * one (with `true`, only once the authorization server advertises DPoP). Undefined = Bearer.
   */
  async dpop(): Promise<DpopSession | undefined> {
    const mode = this.def.oauth?.dpop;
    if (!mode) return undefined;
    if (this.dpopSession) return this.dpopSession;
    const stored = this.record()?.dpopKey;
    const metadata = this.discovered?.authorizationServerMetadata as Record<string, unknown> | undefined;
    if (!stored && mode !== 'required' && !Array.isArray(metadata?.dpop_signing_alg_values_supported))
      return undefined;
    this.dpopSession = (async () => {
      let key = stored;
      if (!key) {
        const fresh = await newDpopKey();
        const saved = await this.update((current) => ({
          ...base(current, this.def, this.serverUrl),
          dpopKey: current?.dpopKey ?? fresh,
        }));
        key = saved?.dpopKey ?? fresh;
      }
      return dpopSessionOf(key);
    })();
    this.dpopSession.catch(() => {
      this.dpopSession = undefined;
    });
    return this.dpopSession;
  }

  private record(): SignInRecord | undefined {
    return this.store.get(this.def.name, this.serverUrl, this.settings);
  }

  private update(change: (current: SignInRecord | undefined) => SignInRecord | undefined) {
    return this.store.update(this.def.name, this.serverUrl, change, this.settings);
  }

  /** The authorization server this run's discovery found, as a binding compares it. */
  private found(state: OAuthDiscoveryState | undefined = this.discovered): FoundServer | undefined {
    if (!state?.authorizationServerUrl) return undefined;
    const metadata = state.authorizationServerMetadata;
    const issuer = metadata?.issuer ?? String(state.authorizationServerUrl);
    const tokenEndpoint = metadata?.token_endpoint ?? String(new URL('/token', state.authorizationServerUrl));
    return { issuer, tokenEndpoint };
  }

  /** The binding a sign-in made now (or first used now) gets: this run's server and this entry's settings. */
  private bindingNow(): SignInBinding | undefined {
    const found = this.found();
    if (!found) return undefined;
    const metadataUrl = this.def.oauth?.authServerMetadataUrl;
    return { ...found, ...(metadataUrl ? { metadataUrl } : {}), settings: this.settings };
  }

  /**
   * Connecting with a stored sign-in: the server this run found must be the one it was made with;
   * else its tokens go nowhere (no refresh, no invalidation) and the entry needs its own sign-in.
   */
  private checkBinding(state: OAuthDiscoveryState): void {
    if (this.interactive) return;
    const found = this.found(state);
    const mismatch = found && bindingMismatch(this.def.name, bindingOf(this.record()), found);
    if (!mismatch) return;
    this.need = { kind: 'other-server', message: mismatch };
    throw new Error(`OAuth for "${this.def.name}" stopped: ${mismatch}`);
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
    if (!this.interactive && !this.machineGrant && !record?.tokens) {
      if (this.need?.kind !== 'refresh-refused') {
        this.need = record?.scope ? { kind: 'scope', scope: record.scope } : this.signInNeeded(record);
      }
      throw new SignInRequiredError(this.def.name);
    }
    const stored = record?.clientInformation as OAuthClientInformationMixed | undefined;
    // A client registered for another redirect URI cannot finish this sign-in; another loopback port
    // is the same redirect (RFC 8252 §7.3), so one registered client serves every sign-in.
    const uris = (stored as { redirect_uris?: unknown } | undefined)?.redirect_uris;
    const redirect = this.redirectUrl;
    if (
      this.interactive &&
      redirect &&
      Array.isArray(uris) &&
      !uris.some((uri) => typeof uri === 'string' && sameRedirect(uri, redirect))
    )
      return undefined;
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
    if (this.def.oauth?.dpop === 'required' && tokens.token_type?.toLowerCase() !== 'dpop') {
      this.need = { kind: 'sign-in' };
      throw new Error(
        `OAuth for "${this.def.name}": the authorization server issued a ${tokens.token_type} token, not a DPoP-bound one, and oauth.dpop is "required"`,
      );
    }
    const fresh = !!this.interactive || this.machineGrant;
    const binding = this.bindingNow();
    await this.update((current) => {
      const next = withTokens(
        base(current, this.def, this.serverUrl),
        tokens as StoredTokens,
        !!this.interactive,
      );
      // A new sign-in is bound to where it was made; a refresh keeps the binding it has.
      if (binding && (fresh || !next.binding)) next.binding = binding;
      return next;
    });
    this.need = undefined;
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    for (const [key, value] of Object.entries(this.def.oauth?.authorizationParams ?? {}))
      if (!url.searchParams.has(key)) url.searchParams.set(key, value);
    if (this.interactive) {
      const scope = this.withOfflineAccess(url.searchParams.get('scope') ?? undefined);
      if (scope !== undefined && scope !== url.searchParams.get('scope')) {
        url.searchParams.set('scope', scope);
        // OpenID Connect Core §11: offline_access is ignored without a consent prompt.
        if (!url.searchParams.has('prompt')) url.searchParams.set('prompt', 'consent');
      }
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

  /**
   * SEP-2207: an authorization server that lists `offline_access` (OpenID Connect flavoured) issues
   * a refresh token only when it is asked for, so a sign-in that wants refreshes asks for it.
   */
  private withOfflineAccess(scope: string | undefined): string | undefined {
    const supported = this.discovered?.authorizationServerMetadata?.scopes_supported;
    if (this.machineGrant || !supported?.includes(OFFLINE_ACCESS)) return scope;
    const words = (scope ?? '').split(' ').filter(Boolean);
    return words.includes(OFFLINE_ACCESS) ? scope : [...words, OFFLINE_ACCESS].join(' ');
  }

  /**
   * Dynamic registration (RFC 7591) through auth(): asks for offline_access as the sign-in will, and
   * when the server refuses the metadata while a scope was named (many list only their own scopes,
   * or none), registers once more without `scope`; the authorization request still names it.
   */
  private async register(input: string | URL, init: RequestInit): Promise<Response> {
    let metadata: Record<string, unknown>;
    try {
      metadata = JSON.parse(String(init.body)) as Record<string, unknown>;
    } catch {
      return this.baseFetch(input, init);
    }
    const scope = this.withOfflineAccess(typeof metadata.scope === 'string' ? metadata.scope : undefined);
    if (scope !== undefined) metadata.scope = scope;
    const send = () => this.baseFetch(input, { ...init, body: JSON.stringify(metadata) });
    const response = await send();
    if (response.status !== 400 || metadata.scope === undefined) return response;
    const error = (await response
      .clone()
      .json()
      .catch(() => undefined)) as { error?: unknown } | undefined;
    if (error?.error !== 'invalid_client_metadata') return response;
    delete metadata.scope;
    return send();
  }

  private isRegistration(input: string | URL, init: RequestInit | undefined): boolean {
    const endpoint = this.discovered?.authorizationServerMetadata?.registration_endpoint;
    if (init?.method !== 'POST' || endpoint === undefined) return false;
    return URL.parse(String(input))?.href === URL.parse(endpoint)?.href;
  }

  /** Never signed in here: say where the user may have signed in that we cannot read. */
  private signInNeeded(record: SignInRecord | undefined): SignInNeed {
    if (!record?.tokens && this.store.othersOf(this.def.name, this.serverUrl, this.settings).length > 0) {
      return {
        kind: 'other-server',
        message: `"${this.def.name}" is signed in with other OAuth settings (another entry of that name and URL); this entry's settings differ, so it does not use that sign-in and needs its own`,
      };
    }
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

  /** A sign-in secret that is not stored (the authorization code): known to the runtimes sharing the store. */
  learnSecrets(values: Iterable<unknown>): void {
    this.store.learnSecrets(values);
  }

  saveCodeVerifier(verifier: string): void {
    this.store.learnSecrets([verifier]);
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
    // Only the sign-in's own token endpoint can say its tokens or client are no good: another
    // server's refusal never signs the user out.
    const binding = bindingOf(this.record());
    if (
      !this.interactive &&
      scope !== 'discovery' &&
      binding &&
      !(this.refusedBy !== undefined && sameUrl(this.refusedBy, binding.tokenEndpoint))
    ) {
      this.need ??= {
        kind: 'other-server',
        message: `a refusal that did not come from the token endpoint of "${this.def.name}"'s sign-in (${binding.tokenEndpoint}) leaves it stored`,
      };
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
    this.checkBinding(state);
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
    // Tokens imported from Pi's built-in MCP carry no issuer: bind them to the one discovery found
    // (an entry with OAuth settings of its own never reads them, so this is the standard discovery).
    const stamp = record?.tokens && (record.tokens.issuer === undefined || record.binding === undefined);
    if (!stamp && record?.discovery?.authorizationServerUrl === state.authorizationServerUrl) return;
    const binding = this.bindingNow();
    await this.update((current) => {
      const next: SignInRecord = { ...base(current, this.def, this.serverUrl), discovery: { ...state } };
      if (next.tokens && !next.binding && binding) next.binding = binding;
      if (next.tokens && next.tokens.issuer === undefined)
        next.tokens = { ...next.tokens, issuer: state.authorizationServerUrl };
      if (next.clientInformation && next.clientInformation.issuer === undefined) {
        next.clientInformation = { ...next.clientInformation, issuer: state.authorizationServerUrl };
      }
      return next;
    });
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    // Connecting, not signed in under this entry's settings while another entry of its name and URL
    // is: say so before anything is fetched from where this entry's settings point.
    if (!this.interactive && !this.machineGrant && !this.record()?.tokens) {
      const need = this.signInNeeded(this.record());
      if (need.kind === 'other-server') {
        this.need = need;
        throw new SignInRequiredError(this.def.name);
      }
    }
    const restored = await this.restoredDiscovery();
    // auth() calls saveDiscoveryState only when it discovers anew: keep what it restores for the
    // RFC 9207 check of this sign-in's redirect.
    if (restored) {
      this.checkBinding(restored);
      this.discovered = restored;
    }
    return restored;
  }

  private async restoredDiscovery(): Promise<OAuthDiscoveryState | undefined> {
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
    // RFC 8414 §3.3: the issuer is the one whose metadata URL this is; a document elsewhere that
    // names another server's issuer is refused.
    if (!this.def.oauth?.skipIssuerMetadataValidation && !issuerMatchesMetadataUrl(issuer, configured)) {
      this.need = {
        kind: 'issuer',
        message: `the authorization server metadata at ${configured} names issuer ${issuer}, whose metadata is not published there (RFC 8414)`,
      };
      throw new Error(`OAuth discovery for "${this.def.name}" failed: ${this.need.message}`);
    }
    return { authorizationServerUrl: issuer, authorizationServerMetadata: metadata };
  }

  async prepareTokenRequest(scope?: string): Promise<URLSearchParams | undefined> {
    if (!this.machineGrant) return undefined;
    if (this.jwtBearer) {
      const state = this.discovered;
      return jwtBearerRequest(this.def.oauth!, {
        authorizationServer: this.issuer() ?? String(state?.authorizationServerUrl ?? this.serverUrl),
        resource: String(state?.resourceMetadata?.resource ?? this.serverUrl),
        ...(scope ? { scope } : {}),
        fetchFn: this.baseFetch,
        learnSecret: (value) => this.store.learnSecrets([value]),
      });
    }
    const params = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scope) params.set('scope', scope);
    return params;
  }

  /** fetch for the transport and auth(): refresh-token requests run under the refresh lock. */
  readonly fetch: FetchLike = async (input, init) => {
    if (this.interactive && this.isRegistration(input, init)) return this.register(input, init!);
    const body = init?.body;
    const grant = body instanceof URLSearchParams ? body.get('grant_type') : null;
    if (grant !== 'refresh_token') {
      const response = await this.baseFetch(input, init);
      if (grant !== null) this.refusedBy = response.ok ? undefined : String(input);
      if (response.status === 403) await this.noteInsufficientScope(response.headers.get('www-authenticate'));
      return response;
    }
    // A refresh token goes only to the token endpoint of the sign-in that holds it.
    const binding = bindingOf(this.record());
    if (binding && !sameUrl(String(input), binding.tokenEndpoint)) {
      const message = bindingMismatch(this.def.name, binding, {
        issuer: this.found()?.issuer ?? String(input),
        tokenEndpoint: String(input),
      })!;
      this.need = { kind: 'other-server', message };
      throw new Error(`OAuth for "${this.def.name}" stopped: ${message}`);
    }
    const sent = (body as URLSearchParams).get('refresh_token');
    return this.store.withRefreshLock(
      this.def.name,
      this.serverUrl,
      () => this.refreshUnderLock(input, init, sent),
      this.settings,
    );
  };

  private async refreshUnderLock(
    input: string | URL,
    init: RequestInit | undefined,
    sent: string | null,
  ): Promise<Response> {
    const current = this.record();
    const stored = current?.tokens;
    if (stored?.refresh_token && stored.refresh_token !== sent)
      return tokenResponse(stored, current?.tokensExpireAt);
    const response = await this.baseFetch(input, init);
    this.refusedBy = response.ok ? undefined : String(input);
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
  }
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

/** Redirect URIs compare exactly, except that a loopback one may use any port (RFC 8252 §7.3). */
export function sameRedirect(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    const [x, y] = [new URL(a), new URL(b)];
    if (!isLoopbackHttp(x)) return false;
    x.port = '';
    y.port = '';
    return x.href === y.href;
  } catch {
    return false;
  }
}

/** Issuers compare as URLs, a trailing slash aside (RFC 8414 §3.3 asks for identity). */
function sameIssuer(a: string, b: string): boolean {
  return a.replace(/\/$/, '') === b.replace(/\/$/, '');
}
