import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { formFrame } from '../form-frame.js';
import { sendPage } from '../render.js';
import { accountOf, requireAccount } from '../session.js';
import { HeldPage } from '../views/held-page.js';
import { SpamPage } from '../views/spam-page.js';
import { INBOX_PAGE_SIZE, pagerOf } from './inbox.js';
import { withQuery } from '../links.js';

type FolderRequest = { Params: { formId: string }; Querystring: { cursor?: unknown } };

/** A form's spam folder and its held submissions: the two kinds kept out of the inbox. */
export function registerSpamRoutes(app: FastifyInstance, ctx: AppContext): void {
  for (const status of ['spam', 'held'] as const) {
    app.get<FolderRequest>(`/forms/:formId/${status}`, { preHandler: requireAccount }, async (request, reply) => {
      const { formId } = request.params;
      const list = `${status}:form:${formId}`;
      const cursor = typeof request.query.cursor === 'string' && request.query.cursor !== '' ? request.query.cursor : null;
      const after = cursor === null ? null : ctx.cursors.decode(list, cursor);
      const { frame, form } = await formFrame(request, reply, ctx, formId);
      const page = await ctx.submissions.listFolder(accountOf(request).user.id, formId, status, { limit: INBOX_PAGE_SIZE, after });
      const path = `/forms/${formId}/${status}`;
      const pager = pagerOf(ctx.cursors, list, path, { search: '', from: '', to: '' }, page.hasMore ? page.rows.at(-1) : undefined, cursor !== null);
      if (status === 'held') return sendPage(reply, HeldPage({ frame, form, workspace: form, rows: page.rows, pager }));
      const retentionMs = ctx.config.spamRetentionMs;
      const back = withQuery(path, cursor ? { cursor } : {});
      const folder = await ctx.submissions.spamFolder(accountOf(request).user.id, formId, retentionMs);
      const retentionDays = Math.round(retentionMs / 86_400_000);
      return sendPage(reply, SpamPage({ frame, form, rows: page.rows, pager, retentionMs, retentionDays, folder, back }));
    });
  }
}
