import type { AppContext } from '../../../context.js';
import { problemResponses } from '../../../schemas/common.js';
import { FileDownloadQuery, FileDownloadResponse, FileParams } from '../../../schemas/file.js';
import { ProblemError } from '../../../errors.js';
import { sendDownload } from '../../../web/file-download.js';
import { authenticateBearer } from '../../auth.js';
import type { FastifyTypeBox } from '../../types.js';
import { scopeSentence } from './operation.js';

export function registerFileRoutes(app: FastifyTypeBox, ctx: AppContext): void {
  app.get(
    '/files/:fileId',
    {
      // NOTE: no `config.scope`: the route takes a bearer token or a signed link, so it authenticates itself
      exposeHeadRoute: false,
      schema: {
        operationId: 'downloadFile',
        tags: ['Submissions'],
        summary: 'Download a file of a submission',
        description:
          'An addition to the spec (file uploads): the `url` of a file in a submission’s `data`. With a bearer token holding `submissions:read` on the ' +
          'file’s workspace (an accepted submission, as the lists show), or without a token as the signed, expiring link a webhook carries ' +
          '(`?expires=…&signature=…`, a week by default). A file that does not exist, was dropped, or that the caller may not read, and a link that ' +
          'has expired or whose signature does not match, are all `404 not_found`: nothing tells them apart. ' +
          scopeSentence('submissions:read').replace('.', ', or a signed link.'),
        params: FileParams,
        querystring: FileDownloadQuery,
        response: { 200: FileDownloadResponse, ...problemResponses('upgrade_required') },
        security: [{ bearerAuth: [] }, {}],
        'x-required-scope': 'submissions:read',
      },
    },
    async (request, reply) => {
      const { fileId } = request.params;
      const { expires, signature } = request.query;
      if (expires !== undefined || signature !== undefined) {
        // a signed link stands on its own: a token sent along changes nothing
        if (!ctx.fileLinks.verify(fileId, expires, signature)) {
          throw new ProblemError('not_found', `File ${fileId} was not found, or the link has expired.`);
        }
        return sendDownload(reply, await ctx.submissionFiles.download(fileId, { signed: true }));
      }
      const principal = await authenticateBearer(request, ctx.tokens, 'submissions:read');
      // as the other routes' hook does: the audit log names the caller
      request.principal = principal;
      return sendDownload(reply, await ctx.submissionFiles.download(fileId, { userId: principal.userId, api: true }));
    },
  );
}
