import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import type { ActiveSession } from '../services/sessions.js';
import { refusalHeaders } from '../web/limiter.js';
import { type FieldErrors, fieldErrors } from './field-errors.js';
import { type LoginLimits, refusalMessage } from './login-limits.js';
import { confirmedByProvider } from './oidc-cookies.js';
import { confirmSecondFactor, secondFactorAsked } from './second-factor-check.js';

/**
 * How a person proves it is them before making a secret that outlives the session (an API token,
 * an automation-tool key): their password; or, for an account without one (made by single sign-on)
 * or while single sign-on is the only way in, a sign-in at the provider in the last 10 minutes.
 * Then their second factor, when they have one (second-factor-check.ts).
 */
export interface IdentityCheck {
  by: 'password' | 'provider';
  /** `provider`: this session signed in at the provider again within 10 minutes. */
  providerConfirmed: boolean;
  /** The second factor's code is asked too. */
  askCode: boolean;
  /** The account's passkeys: with one, "Confirm with a passkey" stands in for the code. */
  passkeys: number;
  /** The account has an app or recovery codes: a code can be typed (a passkey-only account confirms with its passkey). */
  codes: boolean;
}

export async function identityCheckOf(ctx: AppContext, request: FastifyRequest, account: ActiveSession): Promise<IdentityCheck> {
  const byProvider = account.user.passwordHash === null || !(await ctx.oidcSettings.passwordAllowed(account.user));
  const askCode = secondFactorAsked(account);
  const factors = askCode ? await ctx.twoFactor.factorsOf(account.user.id) : null;
  return {
    by: byProvider ? 'provider' : 'password',
    providerConfirmed: byProvider && confirmedByProvider(request, ctx.config),
    askCode,
    passkeys: factors?.passkeys ?? 0,
    codes: factors !== null && (factors.app || factors.recoveryCodesLeft > 0),
  };
}

/**
 * Checks what the form sent against the account's identity check; returns the form's messages and
 * the answer's status, or null when it passes. A wrong password counts as a failed login (a
 * borrowed session cannot guess it either).
 */
export async function confirmIdentity(
  ctx: AppContext,
  limits: LoginLimits,
  request: FastifyRequest,
  reply: FastifyReply,
  sent: { currentPassword?: unknown; code?: unknown },
): Promise<{ errors: FieldErrors; status: number } | null> {
  const account = request.account;
  if (!account) return { errors: { form: 'Log in again.' }, status: 403 };
  const check = await identityCheckOf(ctx, request, account);
  if (check.by === 'provider') {
    if (!check.providerConfirmed)
      return { errors: { currentPassword: 'Confirm it is you with your sign-in provider first (the link above the button).' }, status: 400 };
  } else {
    const refusal = await limits.attempt(request, account.user.email);
    if (refusal) {
      reply.headers(refusalHeaders(refusal));
      return { errors: { currentPassword: refusalMessage(refusal) }, status: 429 };
    }
    try {
      await ctx.users.confirmPassword(account.user.id, typeof sent.currentPassword === 'string' ? sent.currentPassword : '');
    } catch (error) {
      return { errors: fieldErrors(error), status: 400 };
    }
    await limits.succeeded(request, reply, account.user.email);
  }
  return confirmSecondFactor(ctx, limits, request, reply, sent.code);
}
