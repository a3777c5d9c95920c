// `private_key_jwt` client authentication (RFC 7523 §2.2): each token request carries a short-lived
// JWT signed with the configured private key instead of a client secret. Signing is the SDK's.

import { readFile } from 'node:fs/promises';
import type { AddClientAuthentication } from '@modelcontextprotocol/client';
import { createPrivateKeyJwtAuth } from '@modelcontextprotocol/client';
import { OAUTH_DEFAULTS } from '../../../config/defaults.ts';
import type { OAuthConfig } from '../../../config/types.ts';

/** Whether `oauth` authenticates the client with a private key. */
export function usesPrivateKey(oauth: OAuthConfig | undefined): boolean {
  return oauth?.privateKey !== undefined || oauth?.privateKeyFile !== undefined;
}

/** Adds `client_assertion` to a token request; undefined when no private key is configured. */
export function privateKeyJwtAuth(oauth: OAuthConfig | undefined): AddClientAuthentication | undefined {
  if (!oauth || !usesPrivateKey(oauth) || !oauth.clientId) return undefined;
  const clientId = oauth.clientId;
  const alg = oauth.signingAlgorithm ?? OAUTH_DEFAULTS.signingAlgorithm;
  return async (headers, params, url, metadata) => {
    const privateKey = await loadKey(oauth);
    const sign = createPrivateKeyJwtAuth({ issuer: clientId, subject: clientId, privateKey, alg });
    try {
      await sign(headers, params, url, metadata);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(
        `oauth.privateKey could not sign a ${alg} client assertion (${reason}): it must be a PKCS#8 PEM key ("-----BEGIN PRIVATE KEY-----") matching oauth.signingAlgorithm`,
      );
    }
  };
}

async function loadKey(oauth: OAuthConfig): Promise<string> {
  if (oauth.privateKey !== undefined) return oauth.privateKey.replace(/\\n/g, '\n');
  const file = oauth.privateKeyFile ?? '';
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new Error(`oauth.privateKeyFile ${file} cannot be read (${code})`);
  }
}
