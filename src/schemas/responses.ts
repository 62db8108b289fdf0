import { type TSchema, Type } from '@sinclair/typebox';

/**
 * The response headers the OpenAPI document declares (issue 39). A header of a response schema is
 * read by @fastify/swagger (`headers`) and ignored by the serializer.
 */
const header = (description: string, schema: TSchema = Type.String()) => ({ ...schema, description });

/** Headers of every answer of the API. */
export const EVERY_ANSWER_HEADERS = {
  'X-Request-Id': header(
    'The request’s id, named by the service’s log line of it: the caller’s own `X-Request-Id` when it is 1 to 64 letters, digits or `_.:-`, else a new UUID. ' +
      'Absent from the answers to requests that could not be read (`408`, `431`, bytes that are not HTTP/1.1), which close the connection.',
  ),
  'X-RateLimit-Limit': header(
    'The requests one client address may make in the window of `FORMGATE_RATE_LIMIT_API` (absent when it is off). On a `429`, the size of the limit that refused (searches, exports, erasures have their own).',
    Type.Integer({ minimum: 0 }),
  ),
  'X-RateLimit-Remaining': header('The requests left in the window; `0` on a `429`.', Type.Integer({ minimum: 0 })),
  'X-RateLimit-Reset': header('Seconds until the window starts again; on a `429`, the same as `Retry-After`.', Type.Integer({ minimum: 0 })),
};

const RETRY_AFTER = header('Seconds to wait before sending the request again.', Type.Integer({ minimum: 1 }));

/** Headers a problem of this status carries besides those of every answer. */
export function problemHeaders(status: number): Record<string, unknown> {
  const extra: Record<string, unknown> = {};
  if (status === 429 || status === 503) extra['Retry-After'] = RETRY_AFTER;
  if (status === 401) {
    extra['WWW-Authenticate'] = header(
      'The bearer challenge (RFC 6750 §3): `Bearer realm="formgate"`, with `error="invalid_token"` when a token was sent and is bad.',
    );
  }
  if (status === 403) {
    extra['WWW-Authenticate'] = header('On `insufficient_scope` only: `Bearer realm="formgate", error="insufficient_scope", scope="<the scope needed>"`.');
  }
  if (status === 405) extra.Allow = header('The methods the path takes, e.g. `GET, HEAD, PATCH`.');
  return { ...EVERY_ANSWER_HEADERS, ...extra };
}

/** A JSON success answer: its schema, what it is, and its headers (every answer's and `extra`). */
export function answer<T extends TSchema>(schema: T, description: string, extra: Record<string, unknown> = {}) {
  // NOTE: @fastify/swagger reads `x-response-description`, but of a `$ref` only the schema's own `description`
  return {
    ...schema,
    description: schema.description ?? description,
    'x-response-description': description,
    headers: { ...EVERY_ANSWER_HEADERS, ...extra },
  } as T;
}

/** The `201` of a create: the new resource, and `Location`, its address. */
export function created<T extends TSchema>(schema: T, description: string, address: string) {
  return answer(schema, description, { Location: header(`The new resource’s address, \`${address}\` under \`{base_url}\`.`, Type.String({ format: 'uri' })) });
}

/** A `204` with no body. */
export function noContent(description: string) {
  return answer(Type.Null(), description);
}

/** `Content-Disposition` of a download. */
export const CONTENT_DISPOSITION = header(
  'Always `attachment`, with the file’s name made safe (`filename`), and `filename*` in UTF-8 when the name is not ASCII (RFC 6266).',
);
