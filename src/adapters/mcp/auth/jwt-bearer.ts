// The RFC 7523 JWT bearer grant (`oauth.grantType: "jwt-bearer"`). Workload identity federation: the
// identity token is the assertion. Enterprise-managed authorization (SEP-990, `oauth.tokenExchange`):
// the identity token (the user's OpenID ID token) is first exchanged at the identity provider
// (RFC 8693) for an ID-JAG naming the MCP server's authorization server and resource; that is the
// assertion. The exchange itself is the SDK's.

import { type FetchLike, requestJwtAuthorizationGrant } from '@modelcontextprotocol/client';
import type { OAuthConfig } from '../../../config/types.ts';
import { readIdentityToken } from './identity-token.ts';

export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

export interface JwtBearerTarget {
  /** The MCP server's authorization server (the issuer): the ID-JAG's audience. */
  authorizationServer: string;
  /** The MCP server as a protected resource (RFC 8707 / RFC 9728). */
  resource: string;
  scope?: string;
  fetchFn: FetchLike;
  /** Each assertion is a secret of this sign-in (redacted wherever it might be printed). */
  learnSecret(value: string): void;
}

export async function jwtBearerRequest(
  oauth: OAuthConfig,
  target: JwtBearerTarget,
): Promise<URLSearchParams> {
  const identityToken = await readIdentityToken(oauth.identityToken);
  target.learnSecret(identityToken);
  let assertion = identityToken;
  const exchange = oauth.tokenExchange;
  if (exchange) {
    const grant = await requestJwtAuthorizationGrant({
      tokenEndpoint: exchange.tokenEndpoint,
      audience: target.authorizationServer,
      resource: target.resource,
      idToken: identityToken,
      clientId: exchange.clientId,
      ...(exchange.clientSecret ? { clientSecret: exchange.clientSecret } : {}),
      ...(target.scope ? { scope: target.scope } : {}),
      fetchFn: target.fetchFn,
    }).catch((error: Error) => {
      throw new Error(`the token exchange at ${exchange.tokenEndpoint} failed: ${error.message}`);
    });
    assertion = grant.jwtAuthGrant;
    target.learnSecret(assertion);
  }
  const params = new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion });
  if (target.scope) params.set('scope', target.scope);
  return params;
}
