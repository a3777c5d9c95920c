// The DPoP key pair of a sign-in (RFC 9449, `oauth.dpop`): a DPoP-bound token is usable only with the
// key that asked for it, so the key is kept in the sign-in store with the tokens (the CLI's sign-in
// and every Pi session's connection sign their proofs with it). ES256 (P-256), the algorithm every
// DPoP server must accept in practice and the SDK's default. Proofs and nonces are the SDK's.

import { createHash, type JsonWebKey, webcrypto } from 'node:crypto';
import { type DpopKeyPair, DpopSession } from '@modelcontextprotocol/client';

/** What the store keeps: the private JWK (`d` is a secret, redacted like the tokens). */
export interface StoredDpopKey {
  alg: 'ES256';
  privateJwk: JsonWebKey;
}

const EC = { name: 'ECDSA', namedCurve: 'P-256' } as const;

export async function newDpopKey(): Promise<StoredDpopKey> {
  const pair = (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const privateJwk = (await webcrypto.subtle.exportKey('jwk', pair.privateKey)) as JsonWebKey;
  return { alg: 'ES256', privateJwk };
}

/** A session signing with the stored key (the private key stays non-extractable in memory). */
export async function dpopSessionOf(stored: StoredDpopKey): Promise<DpopSession> {
  const { kty, crv, x, y } = stored.privateJwk;
  if (kty !== 'EC' || crv !== 'P-256' || !x || !y) throw new Error('the stored DPoP key is not a P-256 key');
  const publicJwk = { kty, crv, x, y };
  const privateKey = await webcrypto.subtle.importKey('jwk', stored.privateJwk, EC, false, ['sign']);
  const publicKey = await webcrypto.subtle.importKey('jwk', publicJwk, EC, true, ['verify']);
  // RFC 7638: SHA-256 of the required members in lexicographic order.
  const thumbprint = createHash('sha256').update(JSON.stringify({ crv, kty, x, y })).digest('base64url');
  const keyPair = { privateKey, publicKey, publicJwk, thumbprint, alg: 'ES256' } as unknown as DpopKeyPair;
  return DpopSession.create({ keyPair });
}
