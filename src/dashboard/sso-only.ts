import type { FastifyReply } from 'fastify';
import type { AppContext } from '../context.js';
import { sendPage } from './render.js';
import { ProviderButton, SsoOnlyPage } from './views/oidc-pages.js';

/**
 * "Single sign-on only" (issue 43, item 3) on the password pages: the instance admins keep their
 * password (the break-glass accounts, when the provider is down); everyone else signs in by the
 * provider, and is told so where a password would be asked.
 */

/** What a page says instead of taking a password, or null when passwords work for everyone. */
export async function passwordsOffNote(ctx: AppContext): Promise<string | null> {
  const setup = await ctx.oidcSettings.setup();
  if (!setup?.only) return null;
  return `This installation signs in with ${setup.name}: passwords work for its admins only.`;
}

/** Whether this account may use a password: always, unless single sign-on only is on and it is not an admin. */
export async function mayUsePassword(ctx: AppContext, user: { isAdmin: number }): Promise<boolean> {
  return ctx.oidcSettings.passwordAllowed(user);
}

/** The page of a password form refused to a non-admin: why, and the provider's button. */
export async function passwordsOffPage(ctx: AppContext, reply: FastifyReply, next = '/'): Promise<FastifyReply> {
  const setup = await ctx.oidcSettings.setup();
  const name = setup?.name ?? 'your provider';
  const detail = `This installation signs in with ${name} only: passwords work for its admins alone. Sign in with ${name}; a first sign-in makes your account when the admin allows it.`;
  return sendPage(reply, SsoOnlyPage({ detail, button: setup ? ProviderButton({ name, next }) : null }), 403);
}

/** For the account page: why this account has no password to change, or null when it has. */
export async function passwordsOffFor(ctx: AppContext, user: { isAdmin: number }): Promise<string | null> {
  if (await mayUsePassword(ctx, user)) return null;
  return passwordsOffNote(ctx);
}

/** The provider's button on the login page, or null without one; `admin`: the admins' password form was asked for (`/login?admin=1`). */
export async function loginProvider(ctx: AppContext, admin: boolean) {
  const setup = await ctx.oidcSettings.setup();
  if (!setup) return null;
  const passwords = !setup.only ? 'shown' : admin ? 'admin-form' : 'admin-link';
  return { name: setup.name, passwords } as const;
}

/** What the login page says to a person whose password is right but who must use the provider (single sign-on only). */
export const PASSWORDS_OFF = 'Passwords are off on this installation, except for its admins: sign in with your provider.';
