import type { IncomingMessage, ServerResponse } from 'node:http';
import { submitterAddress } from '../domain/submitter-address.js';
import type { ParsedSubmission } from '../intake/fields.js';
import { sendJson } from './answer.js';

/** The header that asks `/echo` for its diagnostic view (a GET's query holds the fields, so a header works for both methods). */
export const EXPLAIN_HEADER = 'x-formgate-explain';

/**
 * `/echo`: the fields as a form would store them, flat (`{"message":"Hello"}`), as the hosted
 * service's echo answers and the clients written for it expect. `?explain` on a POST's address, or
 * the `X-Formgate-Explain` header, asks instead what Formgate made of the post: its data, its
 * control fields, the CAPTCHA answers it carried and the reply-to address it would use.
 */
export function answerEcho(request: IncomingMessage, response: ServerResponse, parsed: ParsedSubmission, query: URLSearchParams | null): void {
  response.setHeader('cache-control', 'no-store');
  if (!wantsExplanation(request, query)) {
    sendJson(response, 200, parsed.data);
    return;
  }
  sendJson(response, 200, {
    data: parsed.data,
    controls: parsed.controls,
    captchaFields: Object.keys(parsed.captcha),
    submitter: submitterAddress(parsed),
  });
}

/** `query` is the address's query when it holds no fields (a POST's), else null. */
function wantsExplanation(request: IncomingMessage, query: URLSearchParams | null): boolean {
  const header = request.headers[EXPLAIN_HEADER];
  if (typeof header === 'string' && !['', '0', 'false', 'no', 'off'].includes(header.trim().toLowerCase())) return true;
  return query?.has('explain') ?? false;
}
