import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { type FieldErrors, fieldErrors } from '../field-errors.js';
import { setFlash } from '../flash.js';
import { workspaceFrame } from '../frame.js';
import { ProblemError } from '../../errors.js';
import { seeOther, sendPage } from '../render.js';
import { accountOf, requireAccount } from '../session.js';
import type { ErasurePreview } from '../../services/erasure.js';
import { ErasurePage } from '../views/erasure-page.js';
import type { ExportLimits } from '../../web/export-limits.js';

type Params = { Params: { workspaceId: string } };
type EraseRequest = FastifyRequest<Params & { Body: Record<string, unknown> | undefined }>;

const emailOf = (request: EraseRequest) => (typeof request.body?.email === 'string' ? request.body.email : '');

/**
 * Erasing a person (any member, any plan, as deleting submissions is): the page, the count for an
 * address (a POST that changes nothing), and the deletion after it.
 */
export function registerErasureRoutes(app: FastifyInstance, ctx: AppContext, exportLimits: ExportLimits): void {
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
    const userId = accountOf(request).user.id;
    await ctx.workspaces.getForMember(userId, request.params.workspaceId);
    let preview: Awaited<ReturnType<typeof ctx.erasure.preview>>;
    try {
      preview = await exportLimits.run(userId, reply, () => ctx.erasure.preview(userId, request.params.workspaceId, email));
    } catch (error) {
      // past the account's limit, a 429 page saying when to try again
      if (isRateLimited(error)) throw error;
      return erasurePage(request, reply, { email, errors: fieldErrors(error) }, 400);
    }
    return erasurePage(request, reply, { email: preview.email, preview });
  });

  app.post<Params & { Body: Record<string, unknown> | undefined }>('/w/:workspaceId/erase', { preHandler: requireAccount }, async (request, reply) => {
    const email = emailOf(request);
    const { workspaceId } = request.params;
    const userId = accountOf(request).user.id;
    await ctx.workspaces.getForMember(userId, workspaceId);
    let result: Awaited<ReturnType<typeof ctx.erasure.erase>>;
    try {
      result = await exportLimits.run(userId, reply, () => ctx.erasure.erase(userId, workspaceId, email));
    } catch (error) {
      if (isRateLimited(error)) throw error;
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

const isRateLimited = (error: unknown) => error instanceof ProblemError && error.code === 'rate_limited';
