import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { DELETE_LIMIT } from '../../services/submissions.js';
import { sendDownload } from '../../web/file-download.js';
import { setFlash } from '../flash.js';
import { frameFor, workspaceFrame } from '../frame.js';
import { seeOther, sendPage } from '../render.js';
import { accountOf, requireAccount, safeNext } from '../session.js';
import { DeleteSubmissionsPage } from '../views/delete-submissions-page.js';
import { SubmissionPage } from '../views/submission-page.js';

type Ids = { id?: unknown; back?: unknown };

/** One submission's page, deleting (one or several, after a confirmation) and Not spam. */
export function registerSubmissionRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get<{ Querystring: Ids }>('/submissions/delete', { preHandler: requireAccount }, async (request, reply) => {
    const back = listAddress(request.query.back);
    const ids = idsOf(request.query.id);
    if (ids.length === 0) {
      setFlash(reply, 'Nothing was deleted: choose the submissions to delete first.');
      return seeOther(reply, back);
    }
    if (ids.length > DELETE_LIMIT) {
      setFlash(reply, `Nothing was deleted: at most ${DELETE_LIMIT} submissions can be deleted at once.`);
      return seeOther(reply, back);
    }
    // every id must be the account's: another workspace's is the 404 page, as it would be alone
    const submissions = await ctx.submissions.submissionsForMember(accountOf(request).user.id, ids);
    const frame = await frameFor(request, reply, ctx, { workspaceId: submissions[0]!.workspaceId, section: 'forms' });
    return sendPage(reply, DeleteSubmissionsPage({ frame, submissions, back }));
  });

  app.post<{ Body: Ids }>('/submissions/delete', { preHandler: requireAccount }, async (request, reply) => {
    const back = listAddress(request.body?.back);
    const deleted = await ctx.submissions.deleteSubmissions(accountOf(request).user.id, idsOf(request.body?.id));
    setFlash(reply, deleted === 1 ? 'Submission deleted' : `${deleted} submissions deleted`);
    return seeOther(reply, back);
  });

  app.get<{ Params: { submissionId: string } }>('/submissions/:submissionId', { preHandler: requireAccount }, async (request, reply) => {
    const submission = await ctx.submissions.getSubmission(accountOf(request).user.id, request.params.submissionId);
    const [{ frame, workspace }, deliveries, files] = await Promise.all([
      workspaceFrame(request, reply, ctx, submission.workspaceId, 'forms'),
      ctx.deliveries.forSubmission(submission.id),
      ctx.submissionFiles.filesOf([submission.id]),
    ]);
    const expiresAt = submission.createdAt + ctx.config.spamRetentionMs;
    const retentionMs = ctx.config.deliveryRetentionMs;
    const deliveryRetention = retentionMs === null ? null : { days: Math.round(retentionMs / 86_400_000), keptSince: Date.now() - retentionMs };
    return sendPage(reply, SubmissionPage({ frame, submission, workspace, deliveries, expiresAt, deliveryRetention, files: files.get(submission.id) ?? [] }));
  });

  // a file of the submission, for a member of its workspace (any status, as the page shows it): always a download
  app.get<{ Params: { submissionId: string; fileId: string } }>(
    '/submissions/:submissionId/files/:fileId',
    { preHandler: requireAccount },
    async (request, reply) => {
      const { submissionId, fileId } = request.params;
      return sendDownload(reply, await ctx.submissionFiles.download(fileId, { userId: accountOf(request).user.id, api: false, submissionId }));
    },
  );

  app.post<{ Params: { submissionId: string }; Body: { back?: unknown } }>(
    '/submissions/:submissionId/not-spam',
    { preHandler: requireAccount },
    async (request, reply) => {
      const moved = await ctx.submissions.markNotSpam(accountOf(request).user.id, request.params.submissionId);
      setFlash(
        reply,
        moved.status === 'accepted' ? 'Moved to the inbox; its deliveries are on their way' : 'Moved to the inbox, but held: the allowance is used',
      );
      const back = request.body?.back;
      return seeOther(reply, back === undefined ? `/forms/${moved.formId}/spam` : listAddress(back));
    },
  );
}

/** A form sends one id as a string and several as an array; anything else is none. */
function idsOf(value: unknown): string[] {
  const list = Array.isArray(value) ? value : [value];
  return list.filter((v): v is string => typeof v === 'string' && v !== '');
}

/** Where a change returns to: a page of the inbox, a folder or a submission, never elsewhere. */
function listAddress(back: unknown): string {
  const path = safeNext(back);
  return /^\/(forms|w|submissions)\//.test(path) ? path : '/';
}
