import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { ProblemError } from '../../errors.js';
import { type FieldErrors, fieldErrors } from '../field-errors.js';
import { setFlash, successFlash } from '../flash.js';
import { workspaceFrame } from '../frame.js';
import type { LoginLimits } from '../login-limits.js';
import { confirmIdentity, identityCheckOf } from '../identity-check.js';
import { seeOther, sendPage } from '../render.js';
import { accountOf, requireAccount } from '../session.js';
import { AutomationKeyCreatedPage, AutomationsPage } from '../views/automations-page.js';

type WorkspaceParams = { Params: { workspaceId: string } };

/** A workspace's automations (issue 42): automation-tool keys, made and revoked by owners, and the platforms' subscriptions. */
export function registerAutomationRoutes(app: FastifyInstance, ctx: AppContext, limits: LoginLimits): void {
  const page = async (request: FastifyRequest, reply: FastifyReply, workspaceId: string, refused?: { typed: string; errors: FieldErrors }, status = 200) => {
    const { frame } = await workspaceFrame(request, reply, ctx, workspaceId, 'settings');
    const userId = accountOf(request).user.id;
    const [keys, hooks, role] = await Promise.all([
      ctx.automationKeys.list(userId, workspaceId),
      ctx.hooks.forWorkspace(userId, workspaceId),
      ctx.team.roleOf(userId, workspaceId),
    ]);
    const view = AutomationsPage({
      frame,
      workspaceId,
      keys,
      hooks,
      owner: role === 'owner',
      identity: await identityCheckOf(ctx, request, accountOf(request)),
      baseUrl: ctx.config.baseUrl,
      typed: refused?.typed,
      errors: refused?.errors,
    });
    return sendPage(reply, view, status);
  };

  app.get<WorkspaceParams>('/w/:workspaceId/automations', { preHandler: requireAccount }, (request, reply) => page(request, reply, request.params.workspaceId));

  // compress: false: the answer shows the new key (dashboard/plugin.ts, BREACH); answered, not redirected: the key is never stored
  app.post<WorkspaceParams & { Body: { name?: unknown; currentPassword?: unknown; code?: unknown } }>(
    '/w/:workspaceId/automations/keys',
    { preHandler: requireAccount, compress: false },
    async (request, reply) => {
      const { workspaceId } = request.params;
      const { user } = accountOf(request);
      const typed = typeof request.body?.name === 'string' ? request.body.name : '';
      // owners only, before the password is weighed: a member is refused whatever they type
      await ctx.team.requireOwner(user.id, workspaceId);
      const refused = await confirmIdentity(ctx, limits, request, reply, { currentPassword: request.body?.currentPassword, code: request.body?.code });
      if (refused) return page(request, reply, workspaceId, { typed, errors: refused.errors }, refused.status);
      let created: Awaited<ReturnType<typeof ctx.automationKeys.create>>;
      try {
        created = await ctx.automationKeys.create(user.id, workspaceId, typed);
      } catch (error) {
        if (error instanceof ProblemError && error.code === 'conflict')
          return page(request, reply, workspaceId, { typed, errors: { name: error.detail } }, 400);
        return page(request, reply, workspaceId, { typed, errors: fieldErrors(error) }, 400);
      }
      request.log.info({ userId: user.id, workspaceId, keyId: created.key.id }, 'automation-tool key made');
      const { frame } = await workspaceFrame(request, reply, ctx, workspaceId, 'settings');
      const view = AutomationKeyCreatedPage({
        frame: { ...frame, flash: successFlash('Key made') },
        workspaceId,
        name: created.key.name,
        secret: created.secret,
        baseUrl: ctx.config.baseUrl,
      });
      return sendPage(reply, view);
    },
  );

  app.post<{ Params: { workspaceId: string; keyId: string } }>(
    '/w/:workspaceId/automations/keys/:keyId/revoke',
    { preHandler: requireAccount },
    async (request, reply) => {
      const { workspaceId, keyId } = request.params;
      const { key, hooksRemoved } = await ctx.automationKeys.revoke(accountOf(request).user.id, workspaceId, keyId);
      request.log.info({ workspaceId, keyId, hooksRemoved }, 'automation-tool key revoked');
      const removed = hooksRemoved === 0 ? '' : `; ${hooksRemoved === 1 ? 'its subscription was' : `its ${hooksRemoved} subscriptions were`} removed`;
      setFlash(reply, `Key “${key.name}” revoked${removed}`);
      return seeOther(reply, `/w/${workspaceId}/automations#keys`);
    },
  );

  app.post<{ Params: { workspaceId: string; hookId: string } }>(
    '/w/:workspaceId/automations/hooks/:hookId/delete',
    { preHandler: requireAccount },
    async (request, reply) => {
      const { workspaceId, hookId } = request.params;
      await ctx.team.requireOwner(accountOf(request).user.id, workspaceId);
      if (!(await ctx.hooks.remove(workspaceId, hookId))) throw new ProblemError('not_found', 'The workspace has no such subscription.');
      request.log.info({ workspaceId, hookId }, 'subscription removed from the dashboard');
      setFlash(reply, 'Subscription removed: the platform gets no more events from it');
      return seeOther(reply, `/w/${workspaceId}/automations#subscriptions`);
    },
  );
}
