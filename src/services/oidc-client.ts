import { createHash } from 'node:crypto';
import * as client from 'openid-client';
import { isLoopbackIssuer } from '../config/oidc.js';
import { normaliseEmail } from '../domain/email-address.js';
import type { OidcSetup } from './oidc-settings.js';
import { emailProblem } from './users.js';

/** Why the provider could not say who the person is: the page's words and the log's reason. */
export type OidcFailure = 'provider_unreachable' | 'provider_refused' | 'invalid_callback';

export class OidcError extends Error {
  constructor(
    readonly reason: OidcFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** What the browser carries to the provider and back: the checks the callback must match. */
export interface AuthorizationStart {
  url: string;
  state: string;
  nonce: string;
  verifier: string;
}

/** Who the provider says the person is, from a verified ID token (and its userinfo when the token lacks claims). */
export interface ProviderIdentity {
  issuer: string;
  subject: string;
  /** Lower-cased; null when the provider gave none or not an address. */
  email: string | null;
  /** The provider says it verified the address (`email_verified`, or Entra ID's `xms_edov`). */
  emailVerified: boolean;
  claims: Record<string, unknown>;
}

const SCOPE = 'openid email profile';
// the provider's metadata and keys are read again after this; a provider down then keeps the last ones
const METADATA_FOR_MS = 60 * 60_000;

/**
 * The OpenID Connect relying party (openid-client, a certified implementation): discovery (cached
 * an hour, one request at a time), the authorization code flow with PKCE, `state` and `nonce`, and
 * the ID token's checks (issuer, audience, signature, nonce, expiry) by the library. Every request
 * to the provider gives up after `timeoutMs`: a provider down or hanging is an `OidcError`, never a
 * wait without end.
 */
export class OidcClient {
  /** Each request to the provider; tests shorten it. */
  timeoutMs = 10_000;
  private cached: { key: string; config: client.Configuration; at: number } | null = null;
  private discovering: { key: string; promise: Promise<client.Configuration> } | null = null;

  /** Where to send the browser, and what the callback must match. `maxAge`: the provider must have signed the person in within it (seconds). */
  async start(setup: OidcSetup, redirectUri: string, options: { maxAge?: number } = {}): Promise<AuthorizationStart> {
    const config = await this.configuration(setup);
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const parameters: Record<string, string> = {
      redirect_uri: redirectUri,
      scope: SCOPE,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    };
    if (options.maxAge !== undefined) parameters.max_age = String(options.maxAge);
    return { url: client.buildAuthorizationUrl(config, parameters).href, state, nonce, verifier };
  }

  /** Checks the provider's answer (`query`: the callback's query string) and trades its code for a verified ID token. */
  async finish(
    setup: OidcSetup,
    redirectUri: string,
    query: string,
    checks: { state: string; nonce: string; verifier: string; maxAge?: number },
  ): Promise<ProviderIdentity> {
    const config = await this.configuration(setup);
    const current = new URL(`${redirectUri}?${query}`);
    let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
    try {
      tokens = await client.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: checks.verifier,
        expectedState: checks.state,
        expectedNonce: checks.nonce,
        idTokenExpected: true,
        ...(checks.maxAge !== undefined ? { maxAge: checks.maxAge } : {}),
      });
    } catch (error) {
      throw classify(error, 'the provider’s answer');
    }
    const idToken = tokens.claims();
    if (!idToken) throw new OidcError('invalid_callback', 'the provider gave no ID token');
    let claims: Record<string, unknown> = { ...idToken };
    if (needsUserInfo(claims) && config.serverMetadata().userinfo_endpoint) {
      try {
        const info = await client.fetchUserInfo(config, tokens.access_token, idToken.sub);
        // NOTE: the ID token's claims win: userinfo only fills in what it lacks
        claims = { ...info, ...claims };
      } catch {
        // the ID token alone then; without a verified email, accounts are not matched by it
      }
    }
    return identityOf(idToken.iss, idToken.sub, claims);
  }

  /** Reads the provider's discovery document afresh (the admin page's check): its issuer, or an OidcError. */
  async check(setup: OidcSetup): Promise<{ issuer: string; endpoint: string }> {
    this.forget();
    const metadata = (await this.configuration(setup)).serverMetadata();
    return { issuer: metadata.issuer, endpoint: metadata.authorization_endpoint ?? '' };
  }

  /** Drops the cached metadata (the settings changed). */
  forget(): void {
    this.cached = null;
  }

  private async configuration(setup: OidcSetup): Promise<client.Configuration> {
    const key = createHash('sha256')
      .update(JSON.stringify([setup.issuer, setup.clientId, setup.clientSecret]))
      .digest('base64url');
    const cached = this.cached?.key === key ? this.cached : null;
    if (cached && Date.now() - cached.at < METADATA_FOR_MS) return cached.config;
    if (this.discovering?.key !== key) {
      const promise = this.discover(setup).finally(() => {
        if (this.discovering?.promise === promise) this.discovering = null;
      });
      this.discovering = { key, promise };
    }
    try {
      const config = await this.discovering.promise;
      this.cached = { key, config, at: Date.now() };
      return config;
    } catch (error) {
      if (cached) return cached.config;
      // a discovery that fails, whatever the cause, leaves the provider unusable: the log says why
      throw new OidcError('provider_unreachable', `the provider's discovery document could not be read: ${describe(error)}`, { cause: error });
    }
  }

  private async discover(setup: OidcSetup): Promise<client.Configuration> {
    const timeout = Math.max(1, Math.ceil(this.timeoutMs / 1000));
    const insecure = isLoopbackIssuer(setup.issuer) ? [client.allowInsecureRequests] : [];
    const found = await client.discovery(new URL(setup.issuer), setup.clientId, setup.clientSecret, undefined, { timeout, execute: insecure });
    // RFC 8414: a provider that names no method takes client_secret_basic, which every certified provider does
    const methods = found.serverMetadata().token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
    const auth = methods.includes('client_secret_basic') ? client.ClientSecretBasic(setup.clientSecret) : client.ClientSecretPost(setup.clientSecret);
    const config = new client.Configuration(found.serverMetadata(), setup.clientId, setup.clientSecret, auth);
    config.timeout = timeout;
    if (insecure.length > 0) client.allowInsecureRequests(config);
    return config;
  }
}

function needsUserInfo(claims: Record<string, unknown>): boolean {
  return claims.email === undefined || (claims.email_verified === undefined && claims.xms_edov === undefined);
}

function identityOf(issuer: string, subject: string, claims: Record<string, unknown>): ProviderIdentity {
  const raw = typeof claims.email === 'string' ? normaliseEmail(claims.email) : '';
  const email = raw !== '' && emailProblem(raw) === null ? raw : null;
  return { issuer, subject, email, emailVerified: email !== null && (isTrue(claims.email_verified) || isTrue(claims.xms_edov)), claims };
}

function isTrue(value: unknown): boolean {
  return value === true || value === 'true' || value === 1 || value === '1';
}

/** A provider that does not answer (refused, timed out, a 5xx or a page that is not JSON) is unreachable; the rest is a refused answer. */
function classify(error: unknown, what: string): OidcError {
  if (error instanceof OidcError) return error;
  if (error instanceof client.AuthorizationResponseError) {
    return new OidcError('provider_refused', `the provider refused: ${error.error}`, { cause: error });
  }
  const code = error instanceof client.ClientError ? error.code : undefined;
  const unreachable =
    error instanceof TypeError || ['OAUTH_TIMEOUT', 'OAUTH_ABORT', 'OAUTH_RESPONSE_IS_NOT_CONFORM', 'OAUTH_RESPONSE_IS_NOT_JSON'].includes(code ?? '');
  if (unreachable) return new OidcError('provider_unreachable', `the provider did not answer for ${what}: ${describe(error)}`, { cause: error });
  return new OidcError('invalid_callback', `${what} was refused: ${describe(error)}`, { cause: error });
}

function describe(error: unknown): string {
  if (error instanceof client.ResponseBodyError) return `${error.error}${error.error_description ? ` (${error.error_description.slice(0, 200)})` : ''}`;
  const cause = (error as { cause?: { code?: string } }).cause?.code;
  return `${(error as Error).message ?? String(error)}${cause ? ` (${cause})` : ''}`.slice(0, 300);
}
