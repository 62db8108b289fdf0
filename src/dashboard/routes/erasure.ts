import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { type FieldErrors, fieldErrors } from '../field-errors.js';
import { setFlash } from '../flash.js';
import { workspaceFrame } from '../frame.js';
import { seeOther, sendPage } from '../render.js';
import { accountOf, requireAccount } from '../session.js';
import type { ErasurePreview } from '../../services/erasure.js';
import { ErasurePage } from '../views/erasure-page.js';

type Params = { Params: { workspaceId: string } };
type EraseRequest = FastifyRequest<Params & { Body: Record<string, unknown> | undefined }>;

const emailOf = (request: EraseRequest) => (typeof request.body?.email === 'string' ? request.body.email : '');

/**
 * Erasing a person (any member, any plan, as deleting submissions is): the page, the count for an
 * address (a POST that changes nothing), and the deletion after it.
 */
export function registerErasureRoutes(app: FastifyInstance, ctx: AppContext): void {
  async function erasurePage(
    request: FastifyRequest<Params>,
    reply: FastifyReply,
    state: { email?: string; errors?: FieldErrors; preview?: ErasurePreview } = {},
    status = 200,
  ) {
    // not_found (the 404 page) for a workspace the account does not belong to
    const { frame, workspace } = await workspaceFrame(request, reply, ctx, request.params.workspaceId, 'settings');
    return sendPage(reply, ErasurePage({ frame, workspace, ...state }), status);
  }

  app.get<Params>('/w/:workspaceId/erase', { preHandler: requireAccount }, (request, reply) => erasurePage(request, reply));

  // NOTE: answered with a page, not a redirect: the address must not go into a URL
  app.post<Params & { Body: Record<string, unknown> | undefined }>('/w/:workspaceId/erase/preview', { preHandler: requireAccount }, async (request, reply) => {
    const email = emailOf(request);
    await ctx.workspaces.getForMember(accountOf(request).user.id, request.params.workspaceId);
    try {
      const preview = await ctx.erasure.preview(accountOf(request).user.id, request.params.workspaceId, email);
      return erasurePage(request, reply, { email: preview.email, preview });
    } catch (error) {
      return erasurePage(request, reply, { email, errors: fieldErrors(error) }, 400);
    }
  });

  app.post<Params & { Body: Record<string, unknown> | undefined }>('/w/:workspaceId/erase', { preHandler: requireAccount }, async (request, reply) => {
    const email = emailOf(request);
    const { workspaceId } = request.params;
    await ctx.workspaces.getForMember(accountOf(request).user.id, workspaceId);
    let result: Awaited<ReturnType<typeof ctx.erasure.erase>>;
    try {
      result = await ctx.erasure.erase(accountOf(request).user.id, workspaceId, email);
    } catch (error) {
      return erasurePage(request, reply, { email, errors: fieldErrors(error) }, 400);
    }
    request.log.info({ workspaceId, deleted: result.deleted, remaining: result.remaining }, 'erased an email address’s submissions');
    const deleted = result.deleted === 1 ? '1 submission deleted' : `${result.deleted} submissions deleted`;
    const left =
      result.remaining === 0
        ? ''
        : ` ${result.remaining} more ${result.remaining === 1 ? 'was' : 'were'} being delivered at that moment: erase the address again in a minute.`;
    setFlash(reply, `Erased: ${deleted}.${left}`);
    return seeOther(reply, `/w/${workspaceId}/erase`);
  });
}
