import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { DEFAULT_DIGEST_FREQUENCY, isDigestFrequency } from '../../domain/spam-digest.js';
import type { DigestSettings } from '../../services/spam-digests.js';
import type { FieldErrors } from '../field-errors.js';
import { fieldErrors } from '../field-errors.js';
import { setFlash } from '../flash.js';
import { workspaceFrame } from '../frame.js';
import { seeOther, sendPage } from '../render.js';
import { accountOf, requireAccount } from '../session.js';
import { SettingsPage } from '../views/settings-page.js';

type WorkspaceRequest = FastifyRequest<{ Params: { workspaceId: string } }>;
type DigestBody = { frequency?: unknown; mine?: unknown };

/** What a refused form sends back to the page: the rename's name, or the digest as sent, with the messages. */
interface Refused {
  name?: string;
  errors?: FieldErrors;
  digest?: DigestSettings;
  digestErrors?: FieldErrors;
}

/** A workspace's settings page: rename it (any member, on any plan), its spam digest, the member's digest of what is assigned to them, see its plan and allowance. */
export function registerWorkspaceSettingsRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get<{ Params: { workspaceId: string } }>('/w/:workspaceId/settings', { preHandler: requireAccount }, (request, reply) => settingsPage(request, reply));

  app.post<{ Params: { workspaceId: string }; Body: { name?: string } }>('/w/:workspaceId/settings', { preHandler: requireAccount }, async (request, reply) => {
    const { user } = accountOf(request);
    const name = String(request.body?.name ?? '');
    try {
      await ctx.workspaces.renameWorkspace(user.id, request.params.workspaceId, name);
    } catch (error) {
      return settingsPage(request, reply, { name, errors: fieldErrors(error) }, 400);
    }
    setFlash(reply, 'Workspace renamed');
    return seeOther(reply, `/w/${request.params.workspaceId}/settings`);
  });

  // Owners require a second factor of every member (issue 43); a checkbox: absent when unticked.
  app.post<{ Params: { workspaceId: string }; Body: { required?: unknown } }>(
    '/w/:workspaceId/settings/two-factor',
    { preHandler: requireAccount },
    async (request, reply) => {
      const required = request.body?.required === '1';
      await ctx.team.setRequireTwoFactor(accountOf(request).user.id, request.params.workspaceId, required);
      request.log.info({ workspaceId: request.params.workspaceId, required }, 'workspace two-factor requirement changed');
      setFlash(reply, required ? 'Every member must now have a second factor.' : 'Members may sign in without a second factor.');
      return seeOther(reply, `/w/${request.params.workspaceId}/settings#two-factor`);
    },
  );

  // How often the workspace's digest goes out, and whether this member gets it (a checkbox: absent when unticked).
  app.post<{ Params: { workspaceId: string }; Body: DigestBody }>(
    '/w/:workspaceId/settings/spam-digest',
    { preHandler: requireAccount },
    async (request, reply) => {
      const { user } = accountOf(request);
      const frequency = request.body?.frequency;
      const mine = request.body?.mine === 'on';
      try {
        const saved = await ctx.spamDigests.save(user.id, request.params.workspaceId, frequency, mine);
        request.log.info({ workspaceId: request.params.workspaceId, frequency: saved.frequency, mine: saved.mine }, 'spam digest settings saved');
        setFlash(
          reply,
          saved.frequency === 'off'
            ? 'Spam digest turned off for everyone'
            : `Spam digest saved: ${saved.frequency}, ${saved.mine ? 'sent to you' : 'not sent to you'}`,
        );
      } catch (error) {
        const digest = { frequency: isDigestFrequency(frequency) ? frequency : DEFAULT_DIGEST_FREQUENCY, mine };
        return settingsPage(request, reply, { digest, digestErrors: fieldErrors(error) }, 400);
      }
      return seeOther(reply, `/w/${request.params.workspaceId}/settings#spam-digest`);
    },
  );

  // Whether this member gets the daily digest of the open submissions assigned to them (a checkbox: absent when unticked).
  app.post<{ Params: { workspaceId: string }; Body: { mine?: unknown } }>(
    '/w/:workspaceId/settings/assigned-digest',
    { preHandler: requireAccount },
    async (request, reply) => {
      const { user } = accountOf(request);
      const saved = await ctx.assignedDigests.save(user.id, request.params.workspaceId, request.body?.mine === 'on');
      request.log.info({ workspaceId: request.params.workspaceId, mine: saved.mine }, 'assigned digest setting saved');
      setFlash(reply, saved.mine ? 'You will get a daily email of the open submissions assigned to you' : 'No more daily email of what is assigned to you');
      return seeOther(reply, `/w/${request.params.workspaceId}/settings#assigned-digest`);
    },
  );

  async function settingsPage(request: WorkspaceRequest, reply: FastifyReply, refused: Refused = {}, status = 200) {
    // not_found (the 404 page) for a workspace the account does not belong to
    const { frame, workspace } = await workspaceFrame(request, reply, ctx, request.params.workspaceId, 'settings');
    const userId = accountOf(request).user.id;
    const [counts, digest, assigned, role, withoutSecondFactor] = await Promise.all([
      ctx.workspaces.counts(workspace.id),
      ctx.spamDigests.settings(userId, workspace.id),
      ctx.assignedDigests.settings(userId, workspace.id),
      ctx.team.roleOf(userId, workspace.id),
      ctx.team.membersWithoutSecondFactor(workspace.id),
    ]);
    const page = SettingsPage({ frame, workspace, ...counts, digest, assignedDigest: assigned.mine, owner: role === 'owner', withoutSecondFactor, ...refused });
    return sendPage(reply, page, status);
  }
}
