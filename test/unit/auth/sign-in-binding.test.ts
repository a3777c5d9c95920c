// The plain rules of a sign-in's binding (issue 34, finding 9): which OAuth settings make an entry's
// sign-in its own, and the RFC 8414 issuer check of a metadata document named by an entry.

import { describe, expect, it } from 'vitest';
import {
  bindingMismatch,
  issuerMatchesMetadataUrl,
  signInSettings,
} from '../../../src/auth/sign-in-binding.ts';
import type { OAuthConfig } from '../../../src/config/types.ts';

const oauth = (extra: Partial<OAuthConfig> = {}) => ({
  oauth: { grantType: 'authorization_code' as const, ...extra },
});

describe('signInSettings', () => {
  it('is empty for an entry with no OAuth settings that decide where tokens go', () => {
    expect(signInSettings({})).toBe('');
    expect(signInSettings(oauth())).toBe('');
    expect(signInSettings(oauth({ scope: 'read', clientName: 'x', callbackPort: 9999 }))).toBe('');
  });

  it('differs with the metadata URL, the client, the grant; is stable for the same settings', () => {
    const a = signInSettings(
      oauth({ authServerMetadataUrl: 'https://a.example/.well-known/oauth-authorization-server' }),
    );
    const b = signInSettings(
      oauth({ authServerMetadataUrl: 'https://b.example/.well-known/oauth-authorization-server' }),
    );
    expect(a).not.toBe('');
    expect(a).not.toBe(b);
    expect(a).toBe(
      signInSettings(
        oauth({ authServerMetadataUrl: 'https://a.example/.well-known/oauth-authorization-server' }),
      ),
    );
    expect(signInSettings(oauth({ clientId: 'one' }))).not.toBe(signInSettings(oauth({ clientId: 'two' })));
    expect(signInSettings({ oauth: { grantType: 'client_credentials' } })).not.toBe('');
  });
});

describe('issuerMatchesMetadataUrl (RFC 8414 §3.3)', () => {
  it("accepts the issuer's own well-known URLs, and paths on the issuer's own origin", () => {
    const issuer = 'https://auth.example.com/tenant';
    expect(
      issuerMatchesMetadataUrl(
        issuer,
        'https://auth.example.com/.well-known/oauth-authorization-server/tenant',
      ),
    ).toBe(true);
    expect(
      issuerMatchesMetadataUrl(issuer, 'https://auth.example.com/.well-known/openid-configuration/tenant'),
    ).toBe(true);
    expect(
      issuerMatchesMetadataUrl(issuer, 'https://auth.example.com/tenant/.well-known/openid-configuration'),
    ).toBe(true);
    expect(
      issuerMatchesMetadataUrl('https://auth.example.com', 'https://auth.example.com/custom/as-metadata'),
    ).toBe(true);
  });

  it('refuses a document on another origin, or outside the issuer path, that names the issuer', () => {
    const issuer = 'https://auth.example.com/tenant';
    expect(
      issuerMatchesMetadataUrl(issuer, 'http://127.0.0.1:4000/.well-known/oauth-authorization-server/tenant'),
    ).toBe(false);
    expect(
      issuerMatchesMetadataUrl(
        issuer,
        'https://auth.example.com.evil.test/.well-known/openid-configuration/tenant',
      ),
    ).toBe(false);
    expect(issuerMatchesMetadataUrl(issuer, 'https://auth.example.com/other/metadata')).toBe(false);
  });
});

describe('bindingMismatch', () => {
  const binding = { issuer: 'https://as.example', tokenEndpoint: 'https://as.example/token', settings: '' };
  it('none for the server the sign-in was made with', () => {
    expect(
      bindingMismatch('x', binding, {
        issuer: 'https://as.example/',
        tokenEndpoint: 'https://as.example/token',
      }),
    ).toBeUndefined();
  });
  it('says so for the same issuer with another token endpoint', () => {
    expect(
      bindingMismatch('x', binding, {
        issuer: 'https://as.example',
        tokenEndpoint: 'http://127.0.0.1:9/token',
      }),
    ).toMatch(/needs its own sign-in/);
  });
});
