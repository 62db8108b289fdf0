import { Type } from '@sinclair/typebox';
import { DateTime, PageOf, PageQuery } from './common.js';
import { CONTENT_DISPOSITION, EVERY_ANSWER_HEADERS } from './responses.js';

export const SubmissionSchema = Type.Object(
  {
    id: Type.String(),
    formId: Type.String(),
    data: Type.Object(
      {},
      {
        additionalProperties: true,
        description:
          'The submitted field names and their values, as sent. An addition to the spec (file uploads): a file field’s value is ' +
          '`{ "name": "cv.pdf", "type": "application/pdf", "size": 48213, "url": "{base_url}/files/{fileId}" }` (a list of them for a `multiple` input or a repeated name); ' +
          '`url` answers a token with `submissions:read` (`GET /files/{fileId}`). A file that was dropped (uploads off, storage used up) is not in `data`.',
      },
    ),
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
        description:
          'Only submissions whose field names or values contain this text, ignoring case and accents (`resume` finds `Résumé`, both ways); 1 to 256 characters.',
      }),
    ),
  },
  { additionalProperties: false },
);
export const SubmissionPageSchema = PageOf(Type.Ref('Submission'), 'A page of submissions, newest first; spam and deleted ones excluded.');
export const SubmissionParams = Type.Object({ submissionId: Type.String({ minLength: 1 }) });

const Instant = (description: string) => Type.Optional(Type.String({ format: 'date-time', minLength: 1, description }));

export const SubmissionExportQuery = Type.Object(
  {
    format: Type.Unsafe<'csv' | 'json'>({
      type: 'string',
      enum: ['csv', 'json'],
      minLength: 1,
      description: '`csv` (UTF-8 with a byte order mark, a column per field, nested fields flattened) or `json` (an array of Submission).',
    }),
    search: SubmissionListQuery.properties.search,
    from: Instant('Only submissions received at this instant or later (ISO 8601 date-time with a time zone, e.g. `2026-11-24T00:00:00Z`).'),
    to: Instant('Only submissions received before this instant (exclusive; ISO 8601 date-time with a time zone).'),
  },
  { additionalProperties: false },
);

export const SubmissionExportResponse = {
  description:
    'Every accepted submission of the form that the filter keeps, newest first, as a file download (`Content-Disposition: attachment`). ' +
    'Streamed: a failure part way through cuts the connection, so a file that ends normally is complete.',
  headers: { ...EVERY_ANSWER_HEADERS, 'Content-Disposition': CONTENT_DISPOSITION },
  content: {
    'text/csv': {
      schema: Type.String({
        description:
          'RFC 4180 with CRLF line ends, after a UTF-8 byte order mark. Columns: `id`, `createdAt`, `formId`, then one per field: nested objects by dotted path ' +
          '(`address.city`), lists of plain values joined by `, ` in one cell, lists of objects by index (`items[0].sku`). A value or name whose first visible character is `=`, `+`, `-`, `@` ' +
          "(also behind spaces, line breaks, a BOM or zero-width characters), or that starts with a tab or CR, is prefixed with `'`. Past 1,000 field columns, the remaining fields of a row share a last column `_other_fields` as a JSON object.",
      }),
    },
    'application/json': { schema: Type.Array(Type.Ref('Submission')) },
  },
};
