import { Type, type TSchema, type TString, type Static } from '@sinclair/typebox';
import { PROBLEMS, type ProblemCode } from '../errors.js';
import { problemHeaders } from './responses.js';

/** A nullable string as `type: ["string", "null"]`: one clear validation message, valid OpenAPI 3.1. */
export function NullableString(schema: TString) {
  const { type: _type, ...rest } = schema as TString & { type: string };
  return Type.Unsafe<string | null>({ ...rest, type: ['string', 'null'] });
}

/** A nullable enumeration of strings. */
export function NullableEnum<T extends string>(values: readonly T[], description: string) {
  return Type.Unsafe<T | null>({ type: ['string', 'null'], enum: [...values, null], description });
}

export function StringEnum<T extends string>(values: readonly T[], description: string) {
  return Type.Unsafe<T>({ type: 'string', enum: [...values], description });
}

export const DateTime = Type.String({ format: 'date-time' });

/** A read-only time of a resource (`createdAt`, `updatedAt`) in a request body: a client may send back what it read; the value is not used. */
export function IgnoredDateTime() {
  return Type.Optional(
    Type.String({ format: 'date-time', description: 'Read-only: accepted, so that a resource read from the API can be sent back, and ignored.' }),
  );
}

export const ProblemSchema = Type.Object(
  {
    type: Type.String({ description: 'Documentation URL of the code: the code with underscores replaced by hyphens, as an anchor.' }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String({ description: 'Human-readable; the wording can change.' }),
    code: Type.String({ description: 'Stable; branch on it.', enum: Object.keys(PROBLEMS) }),
    errors: Type.Optional(Type.Array(Type.String(), { description: 'validation_error and template_invalid: each field and its problem.' })),
    requiredScope: Type.Optional(Type.String({ description: 'insufficient_scope: the scope the operation needs.' })),
    workspaceId: Type.Optional(Type.String({ description: 'upgrade_required: the free workspace the request touched.' })),
  },
  { $id: 'Problem', additionalProperties: true, description: 'RFC 9457 problem details.' },
);
export type Problem = Static<typeof ProblemSchema>;

/** Query of every list operation (4.6). */
export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25, description: 'Page size, 1 to 100; 25 when absent.' })),
  startingAfter: Type.Optional(Type.String({ minLength: 1, description: 'The `nextCursor` of the previous page, handed back unmodified.' })),
};

export function PageOf<T extends TSchema>(item: T, description: string) {
  return Type.Object(
    {
      data: Type.Array(item),
      hasMore: Type.Boolean(),
      nextCursor: NullableString(Type.String({ description: 'Opaque; pass as `startingAfter` to get the next page.' })),
    },
    { description },
  );
}

// Every operation documents these (spec section 7); routes add their own (409, 503). Every operation
// reads its token from the database, so each can find it unable to answer (storage_unavailable),
// and each refuses a Host that is not this server's before it runs (misdirected_request). The
// answers given before any route runs are documented on each operation too, as they can come back
// from any request: another method on the operation's path (405), a body, a path segment or a head
// too large (413, 414, 431), a request too slow (408), an instance shutting down (503).
const COMMON: ProblemCode[] = [
  'validation_error',
  'invalid_token',
  'insufficient_scope',
  'not_found',
  'method_not_allowed',
  'request_timeout',
  'payload_too_large',
  'uri_too_long',
  'misdirected_request',
  'rate_limited',
  'headers_too_large',
  'internal_error',
  'storage_unavailable',
  'shutting_down',
];

/** What a problem status means on an operation, before the codes it can carry. */
const STATUS_SUMMARY: Record<number, string> = {
  405: 'Another method was sent to this operation’s path (Allow lists those it takes)',
};

/** Problem responses of an operation for the OpenAPI document, grouped by status. */
export function problemResponses(...extra: ProblemCode[]) {
  const byStatus = new Map<number, ProblemCode[]>();
  for (const code of [...COMMON, ...extra]) {
    const { status } = PROBLEMS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<number, unknown> = {};
  for (const [status, codes] of byStatus) {
    const summary = STATUS_SUMMARY[status];
    responses[status] = {
      description: `${summary ? `${summary}. ` : ''}Problem: ${codes.join(', ')}`,
      headers: problemHeaders(status),
      content: { 'application/problem+json': { schema: Type.Ref('Problem') } },
    };
  }
  return responses;
}
