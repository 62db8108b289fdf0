import { Type } from '@sinclair/typebox';
import { DateTime, PageOf, PageQuery } from './common.js';

export const SubmissionSchema = Type.Object(
  {
    id: Type.String(),
    formId: Type.String(),
    data: Type.Object({}, { additionalProperties: true, description: 'The submitted field names and their values, as sent.' }),
    createdAt: DateTime,
  },
  { $id: 'Submission' },
);

export const SubmissionListQuery = Type.Object(
  {
    ...PageQuery,
    search: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 256,
        description: 'Only submissions whose field names or values contain this text, case-insensitively; 1 to 256 characters.',
      }),
    ),
  },
  { additionalProperties: false },
);
export const SubmissionPageSchema = PageOf(Type.Ref('Submission'), 'A page of submissions, newest first; spam and deleted ones excluded.');
export const SubmissionParams = Type.Object({ submissionId: Type.String({ minLength: 1 }) });
