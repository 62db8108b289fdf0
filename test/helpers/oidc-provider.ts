import { generateKeyPairSync } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import type { DashboardClient, PageAnswer } from './dashboard.js';

/** A person at the test provider: the claims it gives about them. */
export interface ProviderPerson {
  sub: string;
  email?: string;
  email_verified?: boolean;
  groups?: string[];
  name?: string;
}

export const TEST_CLIENT_ID = 'formgate-test';
export const TEST_CLIENT_SECRET = 'a-client-secret-for-the-tests-only-0123456789';

/**
 * A real OpenID Provider (`oidc-provider`, a certified implementation) on 127.0.0.1, for the tests
 * of single sign-on. Whoever `signingIn` names is signed in at once when the browser arrives (no
 * login form: the provider's interaction is finished by this helper); its claims are what the test
 * set. The client is registered by `allow(redirectUri)`, once the app's address is known; until
 * then the provider answers 503. `stop()` takes it down (a provider that is down).
 */
export class TestProvider {
  private person: ProviderPerson = { sub: 'nobody' };
  /** Everyone who signed in: the provider finds them by `sub` later (a session it keeps). */
  private readonly people = new Map<string, ProviderPerson>();
  private provider: Provider | null = null;

  private constructor(
    private readonly server: http.Server,
    readonly issuer: string,
  ) {}

  static async start(): Promise<TestProvider> {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const test = new TestProvider(server, `http://127.0.0.1:${port}`);
    server.on('request', (req, res) => test.handle(req, res));
    return test;
  }

  /** Who signs in next at the provider (its claims as they are now). */
  get signingIn(): ProviderPerson {
    return this.person;
  }

  set signingIn(person: ProviderPerson) {
    this.person = person;
    this.people.set(person.sub, person);
  }

  /** Registers the test client with the app's redirect URI. */
  allow(redirectUri: string): void {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const people = this.people;
    const provider = new Provider(this.issuer, {
      clients: [
        {
          client_id: TEST_CLIENT_ID,
          client_secret: TEST_CLIENT_SECRET,
          redirect_uris: [redirectUri],
          response_types: ['code'],
          grant_types: ['authorization_code'],
        },
      ],
      jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'test', alg: 'RS256', use: 'sig' }] as never },
      cookies: { keys: ['a-cookie-key-for-the-test-provider'] },
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'groups'] },
      features: { devInteractions: { enabled: false } },
      ttl: { AccessToken: 600, AuthorizationCode: 60, IdToken: 600, Interaction: 600, Session: 3600, Grant: 3600 },
      adapter: MapAdapter,
      interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
      async findAccount(_ctx, sub) {
        const person = people.get(sub);
        return person && { accountId: sub, claims: async () => ({ ...person }) };
      },
    });
    this.provider = provider;
  }

  /** The provider stops answering: its port is closed. */
  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const provider = this.provider;
    if (!provider) {
      res.writeHead(503).end();
      return;
    }
    if (req.url?.startsWith('/interaction/')) {
      this.interact(provider, req, res).catch((error: unknown) => res.writeHead(500).end(String(error)));
      return;
    }
    provider.callback()(req, res);
  }

  /** The provider asks who signs in (login), then what they allow (consent): both answered at once for `signingIn`. */
  private async interact(provider: Provider, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    if (details.prompt.name === 'login') {
      await provider.interactionFinished(req, res, { login: { accountId: this.signingIn.sub } }, { mergeWithLastSubmission: false });
      return;
    }
    const grant = details.grantId
      ? (await provider.Grant.find(details.grantId))!
      : new provider.Grant({ accountId: details.session!.accountId, clientId: String(details.params.client_id) });
    const missing = details.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[] };
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
    await provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
  }
}

type Stored = { payload: Record<string, unknown>; expiresAt: number };
const STORE = new Map<string, Stored>();

/** The provider's artifacts (codes, sessions, grants) in a map: what its own development adapter does, without its warning. */
class MapAdapter {
  constructor(private readonly model: string) {}
  private key(id: string) {
    return `${this.model}:${id}`;
  }
  async upsert(id: string, payload: Record<string, unknown>, expiresIn: number) {
    STORE.set(this.key(id), { payload, expiresAt: Date.now() + expiresIn * 1000 });
    if (typeof payload.uid === 'string') STORE.set(`${this.model}:uid:${payload.uid}`, { payload: { id }, expiresAt: Date.now() + expiresIn * 1000 });
  }
  async find(id: string) {
    const found = STORE.get(this.key(id));
    return found && found.expiresAt > Date.now() ? found.payload : undefined;
  }
  async findByUid(uid: string) {
    const id = STORE.get(`${this.model}:uid:${uid}`)?.payload.id;
    return typeof id === 'string' ? this.find(id) : undefined;
  }
  async findByUserCode() {
    return undefined;
  }
  async consume(id: string) {
    const found = STORE.get(this.key(id));
    if (found) found.payload.consumed = Math.floor(Date.now() / 1000);
  }
  async destroy(id: string) {
    STORE.delete(this.key(id));
  }
  async revokeByGrantId(grantId: string) {
    for (const [key, value] of STORE) if (value.payload.grantId === grantId) STORE.delete(key);
  }
}

/** The app's pages a sign-in passes through on its way to the provider and back. */
const FLOW_PATHS = new Set(['/login/oidc', '/login/oidc/callback', '/login/oidc/confirm']);

/**
 * A browser without a browser for single sign-on: the app's cookies (a DashboardClient) and the
 * provider's, following redirects by hand between the two until the app answers something else
 * than its flow's redirects (a page, or a redirect to where the sign-in leads).
 */
export class SignInBrowser {
  private readonly providerCookies = new Map<string, string>();
  /** The last callback address the provider sent the browser to (for replaying it). */
  lastCallback: string | null = null;

  constructor(readonly page: DashboardClient) {}

  /** Starts at `path` of the app (its sign-in link) and follows the flow. */
  async signIn(path = '/login/oidc'): Promise<PageAnswer> {
    return this.follow(await this.page.get(path));
  }

  /** Goes to the provider and back to the callback's address, without calling it: for a test to change or replay it. */
  async callbackFor(path = '/login/oidc'): Promise<string> {
    await this.follow(await this.page.get(path), true);
    if (!this.lastCallback) throw new Error('the provider sent the browser nowhere');
    return this.lastCallback;
  }

  /** Follows the redirects of an answer of the app (up to the callback, not included, with `stopAtCallback`). */
  async follow(answer: PageAnswer, stopAtCallback = false): Promise<PageAnswer> {
    const appOrigin = new URL(this.page.app.publicUrl).origin;
    let current = answer;
    for (let hop = 0; hop < 20; hop++) {
      if (current.status < 300 || current.status >= 400 || !current.location) return current;
      const url = new URL(current.location, appOrigin);
      if (url.origin === appOrigin) {
        if (!FLOW_PATHS.has(url.pathname)) return current;
        if (url.pathname === '/login/oidc/callback') {
          this.lastCallback = url.pathname + url.search;
          if (stopAtCallback) return current;
        }
        current = await this.page.get(url.pathname + url.search);
      } else {
        current = await this.provider(url);
      }
    }
    throw new Error('more than 20 redirects');
  }

  /** Signs out at the provider: the next sign-in there starts afresh (another person may sign in). */
  forgetProviderSession(): void {
    this.providerCookies.clear();
  }

  private async provider(url: URL): Promise<PageAnswer> {
    const cookie = [...this.providerCookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const response = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, ...value] = pair!.split('=');
      this.providerCookies.set(name!.trim(), value.join('='));
    }
    const location = response.headers.get('location');
    return { status: response.status, headers: response.headers, location: location && new URL(location, url).href, html: await response.text() };
  }
}
