import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { ProblemError } from '../../errors.js';
import { sendExport } from '../../web/attachment.js';
import { EXPORT_FORMATS, type ExportFormat } from '../../services/exports.js';
import type { SubmissionScope } from '../../services/submissions.js';
import { readFilter } from '../date-range.js';
import type { ExportLimits } from '../../web/export-limits.js';
import type { SearchLimits } from '../../web/search-limits.js';
import { accountOf, requireAccount } from '../session.js';
import { sessionKey } from './inbox.js';

type ExportQuery = { Querystring: Record<string, unknown> };

const LABELS: Record<string, string> = { search: 'Search', from: 'From', to: 'To' };

/**
 * The inbox's Export CSV and Export JSON links: the whole filtered set as a download, on every plan
 * (the API's export is the paid one). The filter reads as the inbox reads it; a bad value is an
 * error page saying which, and nothing is exported.
 */
export function registerExportRoutes(app: FastifyInstance, ctx: AppContext, searchLimits: SearchLimits, exportLimits: ExportLimits): void {
  async function exportOf(request: FastifyRequest<ExportQuery>, reply: FastifyReply, scope: SubmissionScope) {
    const { format } = request.query;
    if (typeof format !== 'string' || !(EXPORT_FORMATS as readonly string[]).includes(format)) {
      throw new ProblemError('validation_error', 'The export’s format must be csv or json.');
    }
    const { filter, errors } = readFilter(request.query);
    const problems = Object.entries(errors).map(([field, message]) => `${LABELS[field] ?? field}: ${message}`);
    if (problems.length > 0) throw new ProblemError('validation_error', problems.join(' '));
    if (filter.search !== undefined) await searchLimits.take(sessionKey(request), request.ip, reply);
    const userId = accountOf(request).user.id;
    // held until the file is out (or the browser hangs up); past the limit, a page saying when to try again
    const exported = await exportLimits.run(userId, reply, () => ctx.exports.exportSubmissions(userId, scope, format as ExportFormat, filter), 'sent');
    return sendExport(reply, exported, format as ExportFormat);
  }

  // NOTE: Fastify's automatic HEAD would run the whole export and throw it away
  const options = { preHandler: requireAccount, exposeHeadRoute: false };
  app.get<ExportQuery & { Params: { formId: string } }>('/forms/:formId/export', options, (request, reply) =>
    exportOf(request, reply, { formId: request.params.formId }),
  );
  app.get<ExportQuery & { Params: { workspaceId: string } }>('/w/:workspaceId/export', options, (request, reply) =>
    exportOf(request, reply, { workspaceId: request.params.workspaceId }),
  );
}
