/**
 * The catalogue of problem codes (RFC 9457). Services throw `new ProblemError(code, detail)`;
 * the HTTP layer turns it into `application/problem+json`. The codes are stable: clients branch on them.
 */
export const PROBLEMS = {
  validation_error: {
    status: 400,
    title: 'Validation error',
    summary:
      'The body or query is invalid, a `startingAfter` cursor was not issued by the API or was modified, or a form setting was rejected. A string anywhere in a body, a query or a path that holds the character U+0000 (NUL) or a lone UTF-16 surrogate (`\\ud800`) is refused too (`<field>: must not contain the character U+0000`, `<field>: must be valid Unicode`): neither can be stored as it was sent. A path parameter that is not one of its values (a template `kind` other than `notification` or `autoresponder`) is one too; `detail` names the part of the request at fault (`The request body is invalid.`, `… query …`, `… path …`). Also a JSON body nested more than 32 levels deep (`body`), a path with a malformed percent escape (`path`), and a request that is not valid HTTP/1.1 (`request`). `errors` names each field and its problem.',
  },
  template_invalid: {
    status: 400,
    title: 'Template invalid',
    summary: 'An email template could not be compiled; nothing was stored. `errors` has one entry per problem.',
  },
  captcha_failed: {
    status: 400,
    title: 'CAPTCHA failed',
    summary: 'Submit surface: the form requires a CAPTCHA and its answer was missing or did not verify; nothing was stored.',
  },
  invalid_token: {
    status: 401,
    title: 'Invalid token',
    summary: 'The Authorization header is missing or malformed, or the token is unknown, revoked or expired.',
  },
  insufficient_scope: {
    status: 403,
    title: 'Insufficient scope',
    summary:
      'The token lacks the scope the operation needs; `requiredScope` names it, and so does `WWW-Authenticate: Bearer realm="formgate", error="insufficient_scope", scope="…"`.',
  },
  origin_not_allowed: {
    status: 403,
    title: 'Origin not allowed',
    summary:
      'Submit surface: the form lists its allowed origins and the submission came from a page elsewhere (its `Origin`, or `Referer` without one, is not on the list, or the request sent neither); nothing was stored.',
  },
  quota_exceeded: {
    status: 403,
    title: 'Quota exceeded',
    summary:
      'A plan limit stopped the request (forms per workspace: 10 free, 100 upgraded; one free workspace per account; team members, counting pending invitations: 5 free).',
  },
  upgrade_required: {
    status: 403,
    title: 'Upgrade required',
    summary: 'The request touched a free workspace on an operation that needs an upgraded one; `workspaceId` names it.',
  },
  form_closed: {
    status: 403,
    title: 'Form closed',
    summary:
      'Submit surface: the form takes no submissions now; `reason` says why: `paused` (its owner paused it), `closed` (its closing time, `closesAt`, has passed) or `full` (it has received the `maxSubmissions` it takes). Nothing was stored.',
  },
  forbidden: {
    status: 403,
    title: 'Forbidden',
    summary:
      "Dashboard: the account belongs to the workspace, but its role does not allow the change (only a workspace's owners invite people, revoke invitations and remove members), or it accepts an invitation sent to another e-mail address. Nothing changed. API: a workspace's audit events are for its owners' tokens only, never an automation-tool key's.",
  },
  not_found: {
    status: 404,
    title: 'Not found',
    summary: 'The resource does not exist or belongs to another account; also a template read when the form has none, and an unknown route.',
  },
  method_not_allowed: {
    status: 405,
    title: 'Method not allowed',
    summary: 'The route exists but not with this HTTP method; the `Allow` header lists the methods it has.',
  },
  request_timeout: {
    status: 408,
    title: 'Request timeout',
    summary: "The request (its headers or its body) did not arrive within the server's time limit; nothing changed. The connection is closed.",
  },
  conflict: { status: 409, title: 'Conflict', summary: 'The resource cannot be changed that way, for example deleting a submission quarantined as spam.' },
  payload_too_large: { status: 413, title: 'Payload too large', summary: 'The request body is larger than the service accepts.' },
  uri_too_long: {
    status: 414,
    title: 'URI too long',
    summary: 'A segment of the path (an id) is longer than 100 characters, so it names nothing; nothing changed.',
  },
  misdirected_request: {
    status: 421,
    title: 'Misdirected request',
    summary:
      'The request named a host (its `Host` header) that this server does not answer to: the host of `FORMGATE_PUBLIC_URL`, `localhost` or an IP address. A page elsewhere that points its own name at this server (DNS rebinding) is refused this way; nothing changed.',
  },
  rate_limited: {
    status: 429,
    title: 'Too many requests',
    summary:
      'Too many requests from this address (or, for searches, by this token or session; for exports and erasures, by this account: at most 2 at once and `FORMGATE_RATE_LIMIT_EXPORTS` an hour); retry after the number of seconds in `Retry-After`.',
  },
  headers_too_large: {
    status: 431,
    title: 'Request header fields too large',
    summary: 'The request line (the URL) and headers together are larger than 16 KB; nothing changed. The connection is closed.',
  },
  internal_error: { status: 500, title: 'Internal error', summary: 'The server failed; the details are in its log, never in the answer.' },
  shutting_down: {
    status: 503,
    title: 'Shutting down',
    summary:
      'The instance is shutting down and took no new request on a connection it is closing; nothing changed; retry after the seconds in `Retry-After` (another instance, or this one restarted, answers).',
  },
  storage_unavailable: {
    status: 503,
    title: 'Storage unavailable',
    summary:
      'The database could not take the write right now (its disk is full or read-only, or the connection to it was lost); nothing was stored; or, for a GET, could not be read (the connection to it was lost); retry after the seconds in `Retry-After`. The server recovers by itself, with no restart, once the database can write again. A browser posting to the submit surface gets an error page saying so; the dashboard shows a page asking to try again.',
  },
  upstream_unavailable: {
    status: 503,
    title: 'Upstream unavailable',
    summary:
      'A dependency (the template content checker, or on the submit surface the CAPTCHA provider) could not be reached; nothing changed; retry after the seconds in `Retry-After`.',
  },
} as const satisfies Record<string, { status: number; title: string; summary: string }>;

export type ProblemCode = keyof typeof PROBLEMS;

/** A failure that the client is told about, with the catalogue's status and title. */
export class ProblemError extends Error {
  readonly status: number;
  constructor(
    readonly code: ProblemCode,
    readonly detail: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(detail);
    this.name = 'ProblemError';
    this.status = PROBLEMS[code].status;
  }
}

/** Seconds a client is told to wait after a `503` (a dependency was unreachable), on every surface. */
export const RETRY_AFTER_UNAVAILABLE_SECONDS = 30;

/** The catalogue's answer to a database that cannot take a write right now (db/storage-errors.ts): nothing was stored, try again; a read is told it could not be read. */
export function storageUnavailable(reading = false): ProblemError {
  return reading
    ? new ProblemError('storage_unavailable', 'The database could not be read right now. Try again in a moment.')
    : new ProblemError('storage_unavailable', 'The database could not take the write right now; nothing was stored. Try again in a moment.');
}

/** Whether a request only reads (GET, HEAD): its `storage_unavailable` must not speak of a write. */
export function readOnly(request: { method?: string }): boolean {
  return request.method === 'GET' || request.method === 'HEAD';
}

/** A `400 validation_error` naming each field and its problem. */
export function validationError(errors: string[], detail = 'The request is invalid.'): ProblemError {
  return new ProblemError('validation_error', detail, { errors });
}

/** The anchor of a code in the errors documentation: underscores become hyphens. */
export function problemAnchor(code: string): string {
  return code.replace(/_/g, '-');
}

/** A piece of the request (a path, a header) as a detail may quote it: at most `max` characters, so no answer echoes a request at length. */
export function clip(text: string, max = 100): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
