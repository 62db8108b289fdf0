import assert from 'node:assert/strict';
import type { TestApp } from './app.js';
import { DashboardClient, type PageAnswer } from './dashboard.js';
import { SoftAuthenticator } from './soft-authenticator.js';

/**
 * The app as a browser reaches it for passkeys: at `localhost` (browsers make no passkey for an IP
 * address), the public URL set to it as `formgate serve` would. Returns the app seen at that address.
 */
export function atLocalhost(app: TestApp): TestApp {
  const publicUrl = app.publicUrl.replace('//127.0.0.1:', '//localhost:');
  app.ctx.config.publicUrl = publicUrl;
  return { ...app, publicUrl };
}

/** A software authenticator for the app's address (after atLocalhost). */
export function authenticatorFor(site: TestApp): SoftAuthenticator {
  return new SoftAuthenticator(new URL(site.publicUrl).hostname, site.publicUrl);
}

/** A ceremony's options, as passkeys.js fetches them (the ceremony's cookie lands in the client's jar). */
export async function optionsOf(client: DashboardClient, path: string): Promise<any> {
  const answer = await client.get(path, { accept: 'application/json' });
  assert.equal(answer.status, 200, `GET ${path}: ${answer.status} ${answer.html.slice(0, 300)}`);
  return JSON.parse(answer.html);
}

/** Adds a passkey of `authenticator` on the account page, as the form with its script does. */
export async function addPasskey(client: DashboardClient, authenticator: SoftAuthenticator, name: string): Promise<PageAnswer> {
  await client.get('/account/passkeys');
  const options = await optionsOf(client, '/account/passkeys/registration-options');
  return client.post('/account/passkeys', { name, response: JSON.stringify(authenticator.register(options)) });
}

/** The login page's "Sign in with a passkey", with its answer (returned, to be replayed). */
export async function passkeySignIn(
  client: DashboardClient,
  authenticator: SoftAuthenticator,
  userId: string,
): Promise<{ answer: PageAnswer; fields: Record<string, string> }> {
  await client.get('/login');
  const options = await optionsOf(client, '/login/passkey/options');
  authenticator.counter++;
  const fields = { _csrf: client.csrf, next: '/account', response: JSON.stringify(authenticator.assert(options, { userHandle: userId })) };
  return { answer: await client.post('/login/passkey', fields), fields };
}

/** A client of the app at its passkey address, signed in with the password. */
export async function signedIn(site: TestApp, email: string, password: string): Promise<DashboardClient> {
  const client = new DashboardClient(site);
  await client.enter('/login', email, password);
  return client;
}
