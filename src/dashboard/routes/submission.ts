import type { FastifyInstance } from 'fastify';
import { ProblemError } from '../../errors.js';
import type { AppContext } from '../../context.js';
import { DELETE_LIMIT } from '../../services/submissions.js';
import { sendDownload } from '../../web/file-download.js';
import { setFlash } from '../flash.js';
import { idsOf } from '../bulk-ticks.js';
import { frameFor, workspaceFrame } from '../frame.js';
import { seeOther, sendPage } from '../render.js';
import { accountOf, requireAccount, safeNext } from '../session.js';
import { DeleteSubmissionsPage } from '../views/delete-submissions-page.js';
import { inZone, zoneOf } from '../time-zone.js';
import { SubmissionPage } from '../views/submission-page.js';

type Ids = { id?: unknown; back?: unknown };
type Back = { back?: unknown };

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
    // the dashboard may delete spam now (the spam folder's Delete; docs/decisions.md); the API's DELETE keeps its 409
    const deleted = await ctx.submissions.deleteSubmissions(accountOf(request).user.id, idsOf(request.body?.id), { spam: true });
    setFlash(reply, deleted === 1 ? 'Submission deleted' : `${deleted} submissions deleted`);
    return seeOther(reply, back);
  });

  app.get<{ Params: { submissionId: string } }>('/submissions/:submissionId', { preHandler: requireAccount }, async (request, reply) => {
    const userId = accountOf(request).user.id;
    const submission = await ctx.submissions.getSubmission(userId, request.params.submissionId);
    // opening it marks it read, for the whole team
    if (submission.status === 'accepted') await ctx.submissionMarks.markRead(userId, submission.id);
    const [{ frame, workspace }, deliveries, files, details, neighbours, unread, triage, assignees, labels, carried] = await Promise.all([
      workspaceFrame(request, reply, ctx, submission.workspaceId, 'forms'),
      ctx.deliveries.forSubmission(submission.id),
      ctx.submissionFiles.filesOf([submission.id]),
      ctx.submissionMarks.detailsOf(submission.id),
      submission.status === 'accepted' ? ctx.submissionMarks.neighbours(submission.formId, submission) : { newer: null, older: null },
      ctx.submissionMarks.unreadCounts([submission.formId]),
      ctx.triage.get(userId, submission.id),
      ctx.triage.assignees(userId, submission.workspaceId),
      ctx.labels.list(userId, submission.workspaceId),
      ctx.labels.labelsOf([submission.id]),
    ]);
    const expiresAt = submission.createdAt + ctx.config.spamRetentionMs;
    const retentionMs = ctx.config.deliveryRetentionMs;
    const deliveryRetention = retentionMs === null ? null : { days: Math.round(retentionMs / 86_400_000), keptSince: Date.now() - retentionMs };
    const props = {
      frame,
      submission,
      workspace,
      deliveries,
      expiresAt,
      deliveryRetention,
      files: files.get(submission.id) ?? [],
      ...details,
      neighbours,
      unread: unread.get(submission.formId) ?? 0,
      triage,
      assignees,
      labels,
      carried: carried.get(submission.id) ?? [],
    };
    // in the viewer's zone: the page's title holds the time
    return sendPage(
      reply,
      inZone(zoneOf(request), () => SubmissionPage(props)),
    );
  });

  // Triage from the submission's page: done (then back to the inbox, as after Mark as spam), reopened, or (re)assigned.
  app.post<{ Params: { submissionId: string }; Body: { status?: unknown; assignee?: unknown; back?: unknown } }>(
    '/submissions/:submissionId/triage',
    { preHandler: requireAccount },
    async (request, reply) => {
      const { user } = accountOf(request);
      const { submissionId } = request.params;
      const status = request.body?.status;
      const assignee = request.body?.assignee;
      try {
        if (status === 'done' || status === 'open') {
          const saved = await ctx.triage.update(user, submissionId, { status });
          setFlash(reply, status === 'done' ? 'Marked as done' : 'Reopened');
          if (status === 'done') return seeOther(reply, returnTo(request.body?.back, `/forms/${saved.formId}`));
        } else if (typeof assignee === 'string') {
          await ctx.triage.update(user, submissionId, { assigneeId: assignee === '' ? null : assignee });
          setFlash(reply, assignee === '' ? 'Assigned to nobody' : assignee === user.id ? 'Assigned to you' : 'Assigned; they are told by email');
        } else {
          setFlash(reply, 'Nothing changed: choose Mark as done, Reopen or an assignee.');
        }
      } catch (error) {
        if (error instanceof ProblemError && error.code === 'not_found') throw error;
        setFlash(reply, `Nothing changed: ${problemText(error)}`);
      }
      return seeOther(reply, returnTo(request.body?.back, `/submissions/${submissionId}`));
    },
  );

  app.post<{ Params: { submissionId: string }; Body: Back }>('/submissions/:submissionId/unread', { preHandler: requireAccount }, async (request, reply) => {
    const { formId } = await ctx.submissionMarks.markUnread(accountOf(request).user.id, request.params.submissionId);
    setFlash(reply, 'Marked as unread');
    return seeOther(reply, returnTo(request.body?.back, `/forms/${formId}`));
  });

  app.post<{ Params: { submissionId: string }; Body: Back }>('/submissions/:submissionId/spam', { preHandler: requireAccount }, async (request, reply) => {
    const { user } = accountOf(request);
    const submission = await ctx.submissions.getSubmission(user.id, request.params.submissionId);
    try {
      await ctx.submissionMarks.markSpam(user.id, user.email, { formId: submission.formId }, [submission.id]);
    } catch (error) {
      setFlash(reply, `Nothing changed: ${problemText(error)}`);
      return seeOther(reply, returnTo(request.body?.back, `/submissions/${submission.id}`));
    }
    setFlash(reply, 'Moved to the spam folder');
    return seeOther(reply, returnTo(request.body?.back, `/forms/${submission.formId}`));
  });

  app.post<{ Params: { submissionId: string }; Body: { note?: unknown; back?: unknown } }>(
    '/submissions/:submissionId/note',
    { preHandler: requireAccount },
    async (request, reply) => {
      const { submissionId } = request.params;
      const note = typeof request.body?.note === 'string' ? request.body.note : '';
      try {
        const saved = await ctx.submissionMarks.setNote(accountOf(request).user.id, submissionId, note);
        setFlash(reply, saved.note === null ? 'Note removed' : 'Note saved');
      } catch (error) {
        if (!(error instanceof ProblemError) || error.code !== 'validation_error') throw error;
        setFlash(reply, `The note was not saved: ${error.detail}`);
      }
      return seeOther(reply, `${returnTo(request.body?.back, `/submissions/${submissionId}`)}#note`);
    },
  );

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
        moved.returned
          ? 'Moved back to the inbox; its deliveries were made when it first came and are not sent again'
          : moved.status === 'accepted'
            ? 'Moved to the inbox; its deliveries are on their way'
            : 'Moved to the inbox, but held: the allowance is used',
      );
      const back = request.body?.back;
      return seeOther(reply, back === undefined ? `/forms/${moved.formId}/spam` : listAddress(back));
    },
  );
}

/** Where a change returns to: a page of the inbox, a folder or a submission, never elsewhere. */
function listAddress(back: unknown): string {
  const path = safeNext(back);
  return /^\/(forms|w|submissions)\//.test(path) ? path : '/';
}

/**
 * Where a change returns to: the `back` the inbox's reading pane sends (the pane, the next submission
 * or the list; checked as any list address), else `otherwise`, where it returns to from the page.
 */
export function returnTo(back: unknown, otherwise: string): string {
  return typeof back === 'string' && back !== '' ? listAddress(back) : otherwise;
}

/** A refused change's reason, for a flash message. */
export function problemText(error: unknown): string {
  if (!(error instanceof ProblemError) || error.status >= 500) throw error;
  return error.detail;
}
