import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import type { Token } from '../../services/tokens.js';
import { ProblemError, validationError } from '../../errors.js';
import { endOfDayUtc, tokenInputProblems, tokenStatus } from '../../services/tokens.js';
import { type FieldErrors, fieldErrors } from '../field-errors.js';
import { setFlash, successFlash } from '../flash.js';
import { frameFor } from '../frame.js';
import type { LoginLimits } from '../login-limits.js';
import { confirmIdentity, identityCheckOf } from '../identity-check.js';
import { seeOther, sendPage } from '../render.js';
import { accountOf, requireAccount } from '../session.js';
import { EMPTY_TOKEN_FORM, type TokenFormValues } from '../views/token-form.js';
import { RevokeTokenPage, TokenCreatedPage } from '../views/token-pages.js';
import { type TokenItem, TokensPage } from '../views/tokens-page.js';

interface TokenBody {
  name?: unknown;
  scopes?: unknown;
  expiresAt?: unknown;
  currentPassword?: unknown;
  code?: unknown;
}

type TokenParams = { Params: { tokenId: string } };

function toItem(token: Token, now = Date.now()): TokenItem {
  const { id, name, createdAt, lastUsedAt, expiresAt } = token;
  return { id, name, createdAt, lastUsedAt, expiresAt, scopes: JSON.parse(token.scopes) as string[], status: tokenStatus(token, now) };
}

/** A form sends one checkbox as a string and several as an array; anything else is no value. */
function strings(value: unknown): string[] {
  const list = Array.isArray(value) ? value : [value];
  return list.filter((v): v is string => typeof v === 'string');
}

/** The account's API tokens: list, create (the secret shown once), revoke after a confirmation. */
export function registerTokenRoutes(app: FastifyInstance, ctx: AppContext, limits: LoginLimits): void {
  async function tokensPage(request: FastifyRequest, reply: FastifyReply, form: TokenFormValues, errors?: FieldErrors, status = 200) {
    const { user } = accountOf(request);
    const frame = await frameFor(request, reply, ctx, { section: 'tokens' });
    // team mode: every workspace has the API, one made later too, so nothing is said of plans (issue 41, item 16)
    const [rows, apiOpen] = await Promise.all([ctx.tokens.listTokens(user.id), ctx.plans.team || ctx.workspaces.hasUpgraded(user.id)]);
    const now = Date.now();
    const tokens = rows.map((row) => toItem(row, now));
    const identity = await identityCheckOf(ctx, request, accountOf(request));
    return sendPage(reply, TokensPage({ frame, tokens, form, errors, baseUrl: ctx.config.baseUrl, apiOpen, identity }), status);
  }

  app.get('/account/tokens', { preHandler: requireAccount }, (request, reply) => tokensPage(request, reply, EMPTY_TOKEN_FORM));

  // NOTE: answers the secret in this response (200, no-store) rather than redirecting: a redirect
  // would need the secret kept somewhere between two requests, and it is never stored. Posting the
  // form again creates nothing: the name is then taken, and the form says so.
  // compress: false: the answer shows the new token (dashboard/plugin.ts, BREACH)
  app.post<{ Body: TokenBody }>('/account/tokens', { preHandler: requireAccount, compress: false }, async (request, reply) => {
    const { user } = accountOf(request);
    const form: TokenFormValues = {
      name: strings(request.body?.name)[0] ?? '',
      scopes: strings(request.body?.scopes),
      expiresOn: (strings(request.body?.expiresAt)[0] ?? '').trim(),
    };
    const input = { name: form.name, scopes: form.scopes, expiresAt: form.expiresOn ? endOfDayUtc(form.expiresOn) : null };
    const refused = await confirmIdentity(ctx, limits, request, reply, {
      currentPassword: strings(request.body?.currentPassword)[0],
      code: request.body?.code,
    });
    if (refused) {
      // the form's other messages too, so that one answer says everything to fix
      const errors = refused.status === 400 ? { ...fieldErrors(validationError(tokenInputProblems(input))), ...refused.errors } : refused.errors;
      return tokensPage(request, reply, form, errors, refused.status);
    }
    let created: Awaited<ReturnType<typeof ctx.tokens.createToken>>;
    try {
      created = await ctx.tokens.createToken(user.id, input, { via: 'dashboard', address: request.ip });
    } catch (error) {
      const errors = fieldErrors(error);
      // a name already in use is about the name: said beside it
      const conflict = error instanceof ProblemError && error.code === 'conflict';
      return tokensPage(request, reply, form, conflict ? { name: error.detail } : errors, 400);
    }
    request.log.info({ userId: user.id, tokenId: created.token.id }, 'API token created');
    const frame = await frameFor(request, reply, ctx, { section: 'tokens' });
    const apiOpen = ctx.plans.team || (await ctx.workspaces.hasUpgraded(user.id));
    const page = TokenCreatedPage({
      frame: { ...frame, flash: successFlash('Token created') },
      token: toItem(created.token),
      secret: created.secret,
      baseUrl: ctx.config.baseUrl,
      apiOpen,
    });
    return sendPage(reply, page);
  });

  app.get<TokenParams>('/account/tokens/:tokenId/revoke', { preHandler: requireAccount }, async (request, reply) => {
    const { user } = accountOf(request);
    const token = await ctx.tokens.getToken(user.id, request.params.tokenId);
    if (token.revokedAt !== null) {
      setFlash(reply, `Token “${token.name}” is already revoked`, 'warning');
      return seeOther(reply, '/account/tokens');
    }
    const frame = await frameFor(request, reply, ctx, { section: 'tokens' });
    return sendPage(reply, RevokeTokenPage({ frame, token: toItem(token) }));
  });

  app.post<TokenParams>('/account/tokens/:tokenId/revoke', { preHandler: requireAccount }, async (request, reply) => {
    await ctx.tokens.revokeTokenById(accountOf(request).user.id, request.params.tokenId);
    setFlash(reply, 'Token revoked');
    return seeOther(reply, '/account/tokens');
  });
}
