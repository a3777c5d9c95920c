// A sign-in goes only where it was made (issue 34, finding 9). A stored sign-in records the
// authorization server it came from (issuer, token endpoint, the metadata URL) and a fingerprint of
// the OAuth settings of the entry that made it. An entry with other OAuth settings is stored under
// its own key, so it never reads another's tokens; the provider refreshes only against the bound
// token endpoint. Plain logic: no SDK, no file access.

import { createHash } from 'node:crypto';
import type { OAuthConfig, ServerDefinition } from '../config/types.ts';
import type { SignInBinding, SignInRecord } from './sign-in-record.ts';

/**
 * The OAuth settings that decide where a sign-in goes and who the client is. Others (client name,
 * logo, callback port, scope, extra authorization parameters) change nothing about that.
 */
const BINDING_KEYS = [
  'grantType',
  'authServerMetadataUrl',
  'clientId',
  'clientMetadataUrl',
  'clientRegistration',
  'redirectUri',
  'skipIssuerMetadataValidation',
] as const satisfies ReadonlyArray<keyof OAuthConfig>;

/**
 * A stable fingerprint of an entry's OAuth settings, '' when it has none beyond the defaults (the
 * common case: its sign-in is keyed by name and URL alone, as Pi's own are).
 */
export function signInSettings(def: Pick<ServerDefinition, 'oauth'>): string {
  const oauth = def.oauth;
  if (!oauth) return '';
  const chosen: Array<[string, unknown]> = [];
  for (const key of BINDING_KEYS) {
    const value = oauth[key];
    if (value === undefined || (key === 'grantType' && value === 'authorization_code')) continue;
    if (key === 'skipIssuerMetadataValidation' && value === false) continue;
    chosen.push([key, value]);
  }
  if (chosen.length === 0) return '';
  return createHash('sha256').update(JSON.stringify(chosen)).digest('hex').slice(0, 16);
}

/**
 * Where RFC 8414 (§3, §3.3) says the metadata of `issuer` is published: the well-known suffix
 * inserted before the issuer's path, and OpenID Connect Discovery's appended form.
 */
export function metadataUrlsOf(issuer: string): string[] {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return [];
  }
  const path = url.pathname.replace(/\/$/, '');
  const origin = url.origin;
  return [
    `${origin}/.well-known/oauth-authorization-server${path}`,
    `${origin}/.well-known/openid-configuration${path}`,
    `${origin}${path}/.well-known/openid-configuration`,
  ];
}

/**
 * Whether metadata fetched from `fetchedFrom` may name `issuer` (RFC 8414 §3.3: the issuer is the one
 * whose metadata it is): a well-known URL of that issuer, or another path under the issuer on its own
 * origin (a server that publishes its metadata elsewhere, named by `oauth.authServerMetadataUrl`). A
 * document on any other origin that names the issuer is refused.
 */
export function issuerMatchesMetadataUrl(issuer: string, fetchedFrom: string): boolean {
  const at = comparable(fetchedFrom);
  if (metadataUrlsOf(issuer).some((candidate) => comparable(candidate) === at)) return true;
  try {
    const [from, own] = [new URL(fetchedFrom), new URL(issuer)];
    const base = own.pathname.replace(/\/$/, '');
    return from.origin === own.origin && (from.pathname === base || from.pathname.startsWith(`${base}/`));
  } catch {
    return false;
  }
}

function comparable(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.hash = '';
    parsed.search = '';
    return parsed.href.replace(/\/$/, '');
  } catch {
    return url;
  }
}

/** What this run's discovery found, compared with the binding of a stored sign-in. */
export interface FoundServer {
  issuer: string;
  tokenEndpoint: string;
}

/** Why a stored sign-in may not be used against the server this run found, or undefined when it may. */
export function bindingMismatch(
  name: string,
  binding: SignInBinding | undefined,
  found: FoundServer,
): string | undefined {
  if (!binding) return undefined;
  if (sameUrl(binding.issuer, found.issuer) && sameUrl(binding.tokenEndpoint, found.tokenEndpoint))
    return undefined;
  return `the sign-in stored for "${name}" was made with authorization server ${binding.issuer} (token endpoint ${binding.tokenEndpoint}), but this entry now leads to ${found.issuer} (token endpoint ${found.tokenEndpoint}); its tokens are not sent there: this entry needs its own sign-in`;
}

export function sameUrl(a: string, b: string): boolean {
  return comparable(a) === comparable(b);
}

/** The binding a record carries, or the one its stored discovery implies (records made before bindings). */
export function bindingOf(record: SignInRecord | undefined): SignInBinding | undefined {
  if (!record?.tokens) return undefined;
  if (record.binding) return record.binding;
  const discovery = record.discovery as
    | { authorizationServerUrl?: unknown; authorizationServerMetadata?: Record<string, unknown> }
    | undefined;
  const metadata = discovery?.authorizationServerMetadata;
  const issuer = metadata?.issuer ?? discovery?.authorizationServerUrl;
  const endpoint = metadata?.token_endpoint;
  if (typeof issuer !== 'string' || typeof endpoint !== 'string') return undefined;
  return { issuer, tokenEndpoint: endpoint, settings: '' };
}
