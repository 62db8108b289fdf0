import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import type { ActiveSession } from '../services/sessions.js';
import { refusalHeaders } from '../web/limiter.js';
import type { FieldErrors } from './field-errors.js';
import { type LoginLimits, refusalMessage } from './login-limits.js';

/** A session that proved the second factor this recently makes a token or a key without a code. */
export const RECENT_SECOND_FACTOR_MS = 15 * 60_000;

/** Whether making a secret that outlives the session (a token, a key) must ask the account's second factor now. */
export function secondFactorAsked(account: ActiveSession, now = Date.now()): boolean {
  if (account.user.secondFactorAt === null) return false;
  const proved = account.session.secondFactorAt;
  return proved === null || now - proved >= RECENT_SECOND_FACTOR_MS;
}

/**
 * The second factor asked again before a token or an automation-tool key is made (issue 43: no way
 * around a required second factor, API tokens included). A session that proved it within 15
 * minutes passes; otherwise the form's `code` must be the app's current code or a recovery code
 * (a passkey-only account confirms with its passkey on /account/passkeys). Counted like sign-in tries.
 * Returns the form's message and the answer's status, or null when it passes.
 */
export async function confirmSecondFactor(
  ctx: AppContext,
  limits: LoginLimits,
  request: FastifyRequest,
  reply: FastifyReply,
  code: unknown,
): Promise<{ errors: FieldErrors; status: number } | null> {
  const account = request.account;
  if (!account || !secondFactorAsked(account)) return null;
  const refusal = await limits.secondFactorAttempt(request, account.user.id);
  if (refusal) {
    reply.headers(refusalHeaders(refusal));
    return { errors: { code: refusalMessage(refusal) }, status: 429 };
  }
  const typed = typeof code === 'string' ? code : '';
  if (!typed) {
    const errors = {
      code: 'Type the code your authenticator app shows now (or a recovery code), or first confirm with a passkey (the button above the form).',
    };
    return { errors, status: 400 };
  }
  if (!(await ctx.twoFactor.verify(account.user.id, typed))) return { errors: { code: 'That code is not right, or it was used already.' }, status: 400 };
  await limits.secondFactorSucceeded(request, account.user.id);
  await ctx.sessions.proveSecondFactor(account.session.idHash);
  return null;
}
