import { Type } from '@sinclair/typebox';
import { CONTENT_DISPOSITION, EVERY_ANSWER_HEADERS } from './responses.js';

export const FileParams = Type.Object({ fileId: Type.String({ minLength: 1, maxLength: 128 }) });

export const FileDownloadQuery = Type.Object(
  {
    expires: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 20,
        description: 'With `signature`: the signed link’s expiry, in seconds since 1970 (as a webhook’s file link carries it).',
      }),
    ),
    signature: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'With `expires`: the signed link’s signature. Such a link needs no token.' }),
    ),
  },
  { additionalProperties: false },
);

export const FileDownloadResponse = {
  description:
    'The file’s bytes, always as a download: `Content-Disposition: attachment` with the visitor’s filename made safe (and `filename*` in UTF-8), ' +
    '`Content-Type` the type the visitor declared (without parameters; `application/octet-stream` when it is not a plain type), ' +
    "`X-Content-Type-Options: nosniff`, `Content-Security-Policy: sandbox; default-src 'none'`, `Cache-Control: private, no-store` and `Content-Length`.",
  headers: { ...EVERY_ANSWER_HEADERS, 'Content-Disposition': CONTENT_DISPOSITION },
  // any type: the one the visitor declared
  content: { '*/*': { schema: Type.String({ description: 'The file’s bytes.', contentMediaType: 'application/octet-stream' }) } },
};
