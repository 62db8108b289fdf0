import { negotiate } from '@fastify/accept-negotiator';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import type { AppContext } from '../context.js';
import { isVouchedFor } from '../domain/workspace-trust.js';
import { ProblemError, validationError } from '../errors.js';
import { sendJson } from './answer.js';
import { OriginPolicy, postOriginOf } from './origin-policy.js';

/** The submit surface's ALTCHA addresses: the widget's script and a challenge for one form. */
export type AltchaRoute = '/altcha/altcha.js' | '/altcha/challenge';

const FORM_ID = /^[a-z2-7]{20}$/;
// NOTE: the address is pasted into sites and never changes, so it cannot carry a version: kept a day,
// then revalidated by its ETag (a Formgate upgrade with a new widget reaches visitors within a day).
const WIDGET_CACHE_CONTROL = 'public, max-age=86400';

interface Widget {
  etag: string;
  bodies: { br: Buffer; gzip: Buffer; identity: Buffer };
}

let widget: Widget | null = null;

/** The `altcha` package's web component, minified, read and compressed once. */
function loadWidget(): Widget {
  if (widget) return widget;
  // the package's entry is dist/main/altcha.js; its minified twin sits beside it
  const file = path.join(path.dirname(fileURLToPath(import.meta.resolve('altcha'))), 'altcha.min.js');
  const identity = fs.readFileSync(file);
  widget = {
    etag: `"${createHash('sha256').update(identity).digest('hex').slice(0, 16)}"`,
    bodies: { identity, gzip: gzipSync(identity, { level: 9 }), br: brotliCompressSync(identity) },
  };
  return widget;
}

/** Which ALTCHA address `path` is (`/altcha/<name>`), or null. */
export function altchaRoute(first: string, second: string | undefined, rest: string[]): AltchaRoute | null {
  if (first !== 'altcha' || rest.length > 0) return null;
  if (second === 'altcha.js') return '/altcha/altcha.js';
  if (second === 'challenge') return '/altcha/challenge';
  return null;
}

/** Answers GET or HEAD of an ALTCHA address; errors are thrown as problems for the surface to answer. */
export async function answerAltcha(
  ctx: AppContext,
  route: AltchaRoute,
  query: URLSearchParams,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  if (route === '/altcha/altcha.js') return sendWidget(request, response);
  response.setHeader('cache-control', 'no-store');
  const formId = query.get('form');
  if (!formId || !FORM_ID.test(formId)) {
    throw validationError(['form: must be the id of the form the challenge is for (?form=FORM_ID)'], 'A challenge is issued for one form.');
  }
  const form = await ctx.forms.getIntakeForm(formId);
  if (!form) throw new ProblemError('not_found', `There is no form ${formId}; check the widget's challenge address.`);
  // the same sites that may post to the form may ask for its challenges
  new OriginPolicy(form, postOriginOf(request), 'GET', isVouchedFor(ctx.config.signup === 'open', form)).admit();
  sendJson(response, 200, await ctx.altcha.challenge(formId));
}

function sendWidget(request: IncomingMessage, response: ServerResponse): void {
  const { etag, bodies } = loadWidget();
  const accepted = request.headers['accept-encoding'];
  const encoding = accepted ? negotiate(accepted, ['br', 'gzip']) : null;
  const body = encoding === 'br' || encoding === 'gzip' ? bodies[encoding] : bodies.identity;
  const headers: Record<string, string | number> = {
    'content-type': 'text/javascript; charset=utf-8',
    'cache-control': WIDGET_CACHE_CONTROL,
    etag,
    vary: 'Accept-Encoding',
    'x-content-type-options': 'nosniff',
    // a page that isolates itself (COEP) may still load it
    'cross-origin-resource-policy': 'cross-origin',
  };
  if (request.headers['if-none-match'] === etag) {
    response.writeHead(304, headers);
    response.end();
    return;
  }
  if (encoding === 'br' || encoding === 'gzip') headers['content-encoding'] = encoding;
  headers['content-length'] = body.length;
  response.writeHead(200, headers);
  response.end(request.method === 'HEAD' ? undefined : body);
}
