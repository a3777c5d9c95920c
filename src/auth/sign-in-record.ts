// What the sign-in store keeps per server, and the URL spelling it is keyed by. Apart from the store
// so the readers of other clients' sign-ins (./adapter-sign-ins.ts) can build a record without it.

/** OAuth tokens as the token endpoint sent them, plus the issuer the SDK stamps on them. */
export interface StoredTokens {
  access_token: string;
  token_type: string;
  refresh_token?: string;
  expires_in?: number;
  scope?: string;
  issuer?: string;
  [key: string]: unknown;
}

export interface SignInBinding {
  /** The authorization server's issuer, as its metadata named it (checked against where it was fetched). */
  issuer: string;
  /** Where tokens were obtained, and the only place its refresh token is ever sent. */
  tokenEndpoint: string;
  /** The metadata document the sign-in was made with, when the entry named one. */
  metadataUrl?: string;
  /** signInSettings() of the entry that signed in ('' for an entry with none). */
  settings: string;
}

export interface SignInRecord {
  name: string;
  url: string;
  /** The authorization server the tokens came from, and the OAuth settings they were obtained with. */
  binding?: SignInBinding;
  tokens?: StoredTokens;
  /** Epoch ms when the access token expires (from expires_in at save time). */
  tokensExpireAt?: number;
  /** A dynamically registered (or CIMD) client: client_id, client_secret?, issuer. */
  clientInformation?: Record<string, unknown>;
  /** Discovery results (public metadata), so a refresh need not discover again. */
  discovery?: Record<string, unknown>;
  /** The DPoP key pair the tokens are bound to (RFC 9449; `oauth.dpop`): its private JWK. */
  dpopKey?: { alg: 'ES256'; privateJwk: Record<string, unknown> };
  /** Scope the server asked for (WWW-Authenticate / step-up), requested at the next sign-in. */
  scope?: string;
  /** Where the record came from when it was read: Pi's built-in mcp-auth.json, or pi-mcp-adapter's store. */
  source?: 'pi' | 'pi-mcp-adapter';
  updatedAt?: number;
}

export function normalizeUrl(url: string): string {
  try {
    return String(new URL(url));
  } catch {
    return url;
  }
}
