import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { problemResponses } from '../../../schemas/common.js';
import { FormParams } from '../../../schemas/form.js';
import { answer } from '../../../schemas/responses.js';
import { SpamListQuery, SpamPageSchema } from '../../../schemas/spam-folder.js';
import { SubmissionParams } from '../../../schemas/submission.js';
import type { FolderRow } from '../../../services/quarantine.js';
import { principalOf } from '../../auth.js';
import { envelopeJson, pageRequest } from '../../../web/pagination.js';
import type { FastifyTypeBox } from '../../types.js';
import { operation } from './operation.js';
import { extendedJson, sendJsonText } from './submissions.js';

const spamJson = (row: FolderRow) => extendedJson(row, { spamReasons: row.spamReasons });

/** The spam folder of the API (issue 40, item 6): additions to the spec; the Submission and its lists stay as they are. */
export function registerSpamFolderRoutes(app: FastifyTypeBox, ctx: AppContext): void {
  app.get(
    '/forms/:formId/spam',
    operation('submissions:read', {
      operationId: 'listFormSpam',
      tags: ['Submissions'],
      summary: 'List a form’s spam folder',
      description:
        'An addition to the spec: the form’s submissions quarantined as spam (caught by the filter, or marked by a person or a token), newest first, each a Submission with `spamReasons`. ' +
        'Paged as the submission lists are; there is no `search` (spam is never indexed). Spam is removed on its own after `FORMGATE_SPAM_RETENTION_DAYS` (30 by default).',
      params: FormParams,
      querystring: SpamListQuery,
      response: { 200: answer(SpamPageSchema, 'A page of the spam folder, newest first.'), ...problemResponses('upgrade_required') },
    }),
    async (request, reply) => {
      const { formId } = request.params;
      // the dashboard's spam folder is the same list in the same order: a cursor of either serves both
      const list = `spam:form:${formId}`;
      const page = await ctx.spamVerdicts.listSpam(principalOf(request).userId, formId, pageRequest(ctx.cursors, list, request.query), { api: true });
      return sendJsonText(reply, envelopeJson(ctx.cursors, list, page, spamJson));
    },
  );

  const mark = operation('submissions:write', {
    operationId: 'markSubmissionSpam',
    tags: ['Submissions'],
    summary: 'Mark a submission as spam',
    description:
      'An addition to the spec: moves a submission of the inbox to the spam folder, as the dashboard’s "Mark as spam" does. It leaves the lists and search, and is removed when the spam retention ends. ' +
      'Deliveries already made are not called back, and the allowance it used is not given back. `spamReasons` says who marked it (the token’s account). ' +
      'A submission already in the spam folder, or held past the allowance, is `409 conflict` and nothing changes. No body is read.',
    params: SubmissionParams,
    response: {
      200: answer(Type.Ref('SpamSubmission'), 'The submission, now in the spam folder.'),
      ...problemResponses('upgrade_required', 'conflict'),
    },
  });
  app.post('/submissions/:submissionId/spam', { ...mark, config: { ...mark.config, optionalBody: true } }, async (request, reply) => {
    const moved = await ctx.spamVerdicts.markSpam(principalOf(request).userId, request.params.submissionId, { api: true });
    return sendJsonText(reply, spamJson(moved));
  });

  const notSpam = operation('submissions:write', {
    operationId: 'markSubmissionNotSpam',
    tags: ['Submissions'],
    summary: 'Take a submission out of the spam folder ("Not spam")',
    description:
      'An addition to the spec: moves a quarantined submission back, as the dashboard’s "Not spam" does, and answers where it went (`status`) and what it sent (`deliveries`). ' +
      'One the filter caught comes in as a new submission would: counted against the allowance (held past it) and, when accepted, delivered once. ' +
      'One a person or a token marked as spam goes back to the inbox as it was: nothing is counted or sent again. ' +
      'A submission that is not in the spam folder is `409 conflict` and nothing changes.',
    params: SubmissionParams,
    response: {
      200: answer(Type.Ref('ReturnedSubmission'), 'The submission, out of the spam folder: where it went and what it sent.'),
      ...problemResponses('upgrade_required', 'conflict'),
    },
  });
  app.delete('/submissions/:submissionId/spam', { ...notSpam, config: { ...notSpam.config, optionalBody: true } }, async (request, reply) => {
    const verdict = await ctx.spamVerdicts.markNotSpam(principalOf(request).userId, request.params.submissionId, { api: true });
    return sendJsonText(reply, extendedJson(verdict.submission, { status: verdict.status, deliveries: verdict.deliveries }));
  });
}
