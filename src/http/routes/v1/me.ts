import type { FastifyTypeBox } from '../../types.js';
import { toTokenResource } from '../../../services/tokens.js';
import { problemResponses } from '../../../schemas/common.js';
import { answer } from '../../../schemas/responses.js';
import { Type } from '@sinclair/typebox';
import { principalOf } from '../../auth.js';
import { operation } from './operation.js';

export function registerMeRoutes(app: FastifyTypeBox): void {
  app.get(
    '/me',
    operation('any', {
      operationId: 'getMe',
      tags: ['Token'],
      summary: 'The token making the request',
      description: 'Works with any valid token, on any plan.',
      response: { 200: answer(Type.Ref('Token'), 'The token making the request.'), ...problemResponses() },
    }),
    async (request) => toTokenResource(principalOf(request).token),
  );
}
