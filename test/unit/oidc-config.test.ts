import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildConfig, ConfigError } from '../../src/config/config.js';

describe('FORMGATE_OIDC_*', () => {
  it('is unset by default', () => {
    assert.deepEqual(buildConfig({}).oidc, { issuer: null, clientId: null, clientSecret: null, name: null, signup: null, only: null, rules: null });
  });

  it('reads each variable', () => {
    const { oidc } = buildConfig({
      oidcIssuer: 'https://sso.example.com/realms/main',
      oidcClientId: 'formgate',
      oidcClientSecret: 's3cret',
      oidcName: 'Keycloak',
      oidcSignup: 'on',
      oidcOnly: 'false',
      oidcMembership: 'groups=team -> aaaaaaaaaaaaaaaaaaaa as owner',
    });
    assert.equal(oidc.issuer, 'https://sso.example.com/realms/main');
    assert.deepEqual([oidc.clientId, oidc.clientSecret, oidc.name, oidc.signup, oidc.only], ['formgate', 's3cret', 'Keycloak', true, false]);
    assert.deepEqual(
      oidc.rules?.map((r) => [r.kind, r.workspaceId, r.role]),
      [['claim', 'aaaaaaaaaaaaaaaaaaaa', 'owner']],
    );
  });

  it('takes http for this machine only, and refuses what is not an issuer, a flag or a rule', () => {
    assert.equal(buildConfig({ oidcIssuer: 'http://127.0.0.1:9000' }).oidc.issuer, 'http://127.0.0.1:9000');
    assert.throws(
      () => buildConfig({ oidcIssuer: 'http://sso.example.com' }),
      (e: Error) => e instanceof ConfigError && /FORMGATE_OIDC_ISSUER must be an https URL/.test(e.message),
    );
    assert.throws(() => buildConfig({ oidcIssuer: 'https://sso.example.com/?x=1' }), /no query/);
    assert.throws(() => buildConfig({ oidcOnly: 'maybe' }), /FORMGATE_OIDC_ONLY must be on or off/);
    assert.throws(() => buildConfig({ oidcMembership: 'groups -> x' }), /FORMGATE_OIDC_MEMBERSHIP: rule 1/);
  });
});
